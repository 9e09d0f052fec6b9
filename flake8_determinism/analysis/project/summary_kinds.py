"""What the summary's first pass collects of each body, for the second pass and the body facts
to read: a call, an import, or a switch turned on by an assignment (``cudnn.deterministic =
True``: in the events it is a ``Seed`` of that switch, as the linted module's facts count
switches)."""

CALL, IMPORT, SWITCH = "C", "I", "W"
