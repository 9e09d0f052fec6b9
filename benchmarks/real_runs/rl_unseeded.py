"""minimalRL's PPO on CartPole-v1 (seungeunrho/minimalRL ``ppo.py``): a single-file PPO with
GAE, trained online from the environment (no data files).  Unseeded: the policy network's
initial weights (torch), the actions drawn from ``Categorical(prob).sample()`` (torch) and the
environment's initial states (``env.reset()`` without a seed: gymnasium draws fresh entropy).
The script already uses the gym>=0.26 API (``reset`` returns ``(obs, info)``, ``step`` five
values); the only non-size edit is ``import gym`` -> ``import gymnasium as gym`` (the old
``gym`` package is not installed; gymnasium is its maintained successor with the same API)."""

from real_runs import replace

REPO = "seungeunrho/minimalRL"
COMMIT = "c8efed8481e3cd40e9739cfde220a55522555b57"
FILES = {"ppo.py": "1d4930648385b30d92f10bfdce2ad552cd8c6184"}
REQUIRES = ("torch", "gymnasium")
WORKDIR = "."
COMMAND = ("ppo.py",)
# The script prints "# of episode :20, avg score : 23.4" every 20 episodes.
VERIFY_ARGS = ("--metric", r"avg score : (?P<value>[-0-9.e]+)")


def adapt(root):
    # Library rename only (same API): gymnasium instead of the unmaintained gym.
    replace(root / "ppo.py", "import gym\n", "import gymnasium as gym\n")
    # Size only: 61 episodes (averages printed after episodes 20, 40, 60) instead of 10000.
    replace(root / "ppo.py", "for n_epi in range(10000):", "for n_epi in range(61):")
