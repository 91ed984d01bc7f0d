"""A GRU text classifier for hetsim's accuracy draws (a recurrent model, many
small operators per step): vocabulary 2000, sequence 48, embedding 64, one
GRU layer of width 128, 203,786 parameters.  build_model() returns a plain
torch.nn.Module taking int64 tokens of shape (batch, 48)."""
import torch.nn as nn

SYNTHETIC = "tokens:48:2000/10"


class GruClassifier(nn.Module):
    def __init__(self, vocab=2000, width=64, hidden=128, classes=10):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.gru = nn.GRU(width, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, tokens):
        _, h = self.gru(self.embed(tokens))
        return self.head(h[-1])


def build_model():
    return GruClassifier()
