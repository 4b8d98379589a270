"""Single-file training recipes, shipped in the wheel and run as modules (``--help`` lists each
one's flags; ``--fast`` is a smoke run of seconds):

    python -m awale.recipes.ppo_selfplay     # PPO with action masking, self-play (torch)
    python -m awale.recipes.maskable_ppo     # sb3-contrib's MaskablePPO (pip install 'awale[sb3]')
    python -m awale.recipes.torchrl_ppo      # TorchRL's PPO (pip install 'awale[torchrl]')
    python -m awale.recipes.torch_dlpack     # plain PyTorch through DLPack (torch)
    python -m awale.recipes.az_torch         # AlphaZero in PyTorch on the Rust search (awale[torch])
    python -m awale.recipes.rllib_selfplay   # RLlib self-play (pip install 'awale[rllib]')
    python -m awale.recipes.ray_selfplay     # the Rust trainer's self-play on Ray (awale[ray])
    python -m awale.recipes.plot_metrics     # PNG curves of an `awale train` run (matplotlib)

Importing this package imports none of them: each recipe imports its own heavy packages (torch,
sb3, ray) when it runs. To change a recipe, copy its file (``awale/recipes/NAME.py``). The
TOML configs of the Rust trainer are built into ``awale train --config NAME`` instead
(docs/training.md). Their methods and measured results: docs/training-python.md.
"""

#: Programs, not an API: nothing to import from here (each runs with `python -m`).
__all__: list[str] = []
