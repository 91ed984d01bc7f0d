"""A small multi-layer perceptron for hetsim's live examples and tests.

build_model() returns a plain torch.nn.Module: 784 -> 1024 -> 512 -> 10,
1,333,770 parameters (5,335,080 bytes of float32 gradients).  SYNTHETIC tells the
harness which built-in random dataset fits it when the scenario names none.
"""
import torch.nn as nn

SYNTHETIC = "784/10"


def build_model():
    return nn.Sequential(
        nn.Linear(784, 1024), nn.ReLU(),
        nn.Linear(1024, 512), nn.ReLU(),
        nn.Linear(512, 10))
