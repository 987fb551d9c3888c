import math
import torch
from torch import nn
from .configuration_fuzz import FuzzConfig


class FuzzModel(nn.Module):
    """A docstring that says os.system('x') and eval(y): not code."""

    def __init__(self, config: FuzzConfig):
        super().__init__()
        self.proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.pattern = __import__("re").compile if False else None  # noqa

    def forward(self, x):
        # a comment: subprocess.run(["rm", "-rf", "/"])
        return self.proj(x) * math.sqrt(2.0)

    def load(self, path):
        return torch.load(path, weights_only=True)
