"""A deep, narrow multi-layer perceptron for hetsim's accuracy draws: many
small operators and a small gradient payload: 256 inputs, 16 hidden layers
of width 192 with LayerNorm, 10 classes, 650,314 parameters.  build_model() returns a plain
torch.nn.Module."""
import torch.nn as nn

SYNTHETIC = "256/10"


def build_model():
    layers = [nn.Linear(256, 192), nn.ReLU()]
    for _ in range(16):
        layers += [nn.Linear(192, 192), nn.LayerNorm(192), nn.ReLU()]
    layers += [nn.Linear(192, 10)]
    return nn.Sequential(*layers)
