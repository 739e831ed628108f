"""Writing a generated file only when its content changes, shared by the code generators:
an unchanged header keeps its time stamp, so Ninja (restat) rebuilds nothing that includes it."""
import os


def write_if_changed(path, lines):
    text = "\n".join(lines)
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, "w") as f:
        f.write(text)
