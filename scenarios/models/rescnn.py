"""A residual CNN with GroupNorm on 3x32x32 images for hetsim's accuracy
draws: a stem, three residual stages (32, 64, 128 channels) and a linear
head, 308,266 parameters.  build_model() returns a plain torch.nn.Module."""
import torch.nn as nn

SYNTHETIC = "3x32x32/10"


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
            nn.GroupNorm(8, cout), nn.ReLU(),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False),
            nn.GroupNorm(8, cout))
        self.skip = (nn.Identity() if cin == cout and stride == 1 else
                     nn.Conv2d(cin, cout, 1, stride=stride, bias=False))
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.body(x) + self.skip(x))


def build_model():
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1, bias=False), nn.GroupNorm(8, 32),
        nn.ReLU(),
        Block(32, 32, 1), Block(32, 64, 2), Block(64, 128, 2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10))
