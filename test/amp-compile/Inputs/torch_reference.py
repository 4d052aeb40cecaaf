"""The PyTorch side of the parity tests: the same training run with
torch.optim.SGD, and the comparison line the tests check."""
import torch


def sgd_cross_entropy_losses(model, x, labels, steps=20, lr=0.05,
                             momentum=0.9):
    """Trains `model` in place; returns the loss before each step."""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def report(ours, theirs):
    """Prints the worst relative difference and both curves; returns it."""
    worst = max(abs(a - b) / abs(b) for a, b in zip(ours, theirs))
    print("steps %d worst relative difference %.2e" % (len(ours), worst))
    print("loss %.3f -> %.3f (torch %.3f -> %.3f)" % (ours[0], ours[-1],
                                                      theirs[0], theirs[-1]))
    return worst
