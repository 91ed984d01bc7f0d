"""A wide multi-layer perceptron for hetsim's accuracy draws: few large
operators and a large gradient payload: 784 -> 2560 -> 1536 -> 10,
5,958,666 parameters.  build_model() returns a plain torch.nn.Module."""
import torch.nn as nn

SYNTHETIC = "784/10"


def build_model():
    return nn.Sequential(
        nn.Linear(784, 2560), nn.ReLU(),
        nn.Linear(2560, 1536), nn.ReLU(),
        nn.Linear(1536, 10))
