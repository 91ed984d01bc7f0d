"""A small convolutional network on 3x32x32 images (CIFAR-sized) for
hetsim's live examples: four conv layers and two linear ones, 768,650
parameters (3.1 MB of gradients).  build_model() returns a plain torch.nn.Module."""
import torch.nn as nn

SYNTHETIC = "3x32x32/10"


def build_model():
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.MaxPool2d(2),                                   # 16x16
        nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        nn.MaxPool2d(2),                                   # 8x8
        nn.Conv2d(128, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        nn.MaxPool2d(2),                                   # 4x4
        nn.Flatten(),
        nn.Linear(128 * 4 * 4, 256), nn.ReLU(),
        nn.Linear(256, 10))
