"""A PyTorch-style classifier trained on synthetic "digits": nn + optim + DataLoader.

    python examples/classifier_training.py            # with wengert standing for torch
    python examples/classifier_training.py --torch    # the same script with PyTorch itself

Everything below the import is PyTorch code, unchanged: a small convolutional network (Conv2d,
ReLU, Flatten, Linear, Dropout), cross-entropy loss, Adam with a StepLR schedule, batches from a
DataLoader. The data and the initial weights come from NumPy with a fixed seed, so both libraries
start from the same numbers and, in float64, print the same losses (to ~1e-12).
"""
import sys

import numpy as np

if "--torch" in sys.argv:
    import torch
else:
    import wengert as torch

nn = torch.nn   # (`from torch import nn` would import the module named torch, whichever `torch` is above)

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(0)

# -- synthetic 8x8 "digits": each class is a fixed pattern plus noise --------------------------
CLASSES, SIDE, PER_CLASS = 4, 8, 48
patterns = rng.normal(size=(CLASSES, SIDE, SIDE))
labels = np.repeat(np.arange(CLASSES), PER_CLASS)
images = patterns[labels] + 2.5 * rng.normal(size=(len(labels), SIDE, SIDE))
order = rng.permutation(len(labels))   # one fixed shuffle, the same for both libraries
X = torch.tensor(images[order, None, :, :])            # (N, 1, 8, 8)
y = torch.tensor(labels[order])                        # class indices (int64)
train = torch.utils.data.TensorDataset(X[:160], y[:160])
test_X, test_y = X[160:], y[160:]
loader = torch.utils.data.DataLoader(train, batch_size=32, shuffle=False)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 6, kernel_size=3, padding=1), nn.ReLU(),
                                      nn.Conv2d(6, 8, kernel_size=3, stride=2), nn.ReLU(), nn.Flatten())
        self.head = nn.Sequential(nn.Linear(8 * 3 * 3, 32), nn.Tanh(), nn.Dropout(0.0), nn.Linear(32, CLASSES))

    def forward(self, x):
        return self.head(self.features(x))


model = Net()
with torch.no_grad():   # the same initial weights under both libraries
    for p in model.parameters():
        p.copy_(torch.tensor(0.3 * rng.normal(size=tuple(p.shape))))
print(model)

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)

for epoch in range(6):
    model.train()
    total = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
    scheduler.step()
    model.eval()
    with torch.no_grad():
        accuracy = (model(test_X).argmax(dim=1) == test_y).double().mean().item()
    print(f"epoch {epoch}: loss {total / len(train):.12f}, test accuracy {accuracy:.3f}, "
          f"lr {scheduler.get_last_lr()[0]:.5f}")
