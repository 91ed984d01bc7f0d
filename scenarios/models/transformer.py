"""A small transformer encoder classifying token sequences, for hetsim's
live examples: vocabulary 1000, sequence 64, width 128, 2 layers, 534,026
parameters (2.1 MB of gradients).  build_model() returns a plain torch.nn.Module taking
int64 tokens of shape (batch, 64)."""
import torch
import torch.nn as nn

SYNTHETIC = "tokens:64:1000/10"


class TinyTransformer(nn.Module):
    def __init__(self, vocab=1000, seq=64, width=128, heads=4, layers=2,
                 classes=10):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.pos = nn.Parameter(torch.zeros(1, seq, width))
        layer = nn.TransformerEncoderLayer(width, heads, 4 * width,
                                           dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(width, classes)

    def forward(self, tokens):
        h = self.embed(tokens) + self.pos[:, :tokens.shape[1]]
        h = self.encoder(h)
        return self.head(h.mean(dim=1))


def build_model():
    return TinyTransformer()
