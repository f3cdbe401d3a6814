"""compiletime(T): the annotation of a program argument fixed at build time."""


class CompileTime:
    """`compiletime(int)` / `compiletime[int]`: specialized by orch, part of the cache key."""

    def __init__(self, type_):
        self.type = type_

    def __repr__(self):
        return f"compiletime({getattr(self.type, '__name__', self.type)})"


class _CompileTimeFactory:
    def __call__(self, type_):
        return CompileTime(type_)

    def __getitem__(self, type_):
        return CompileTime(type_)

    def __repr__(self):
        return "compiletime"


compiletime = _CompileTimeFactory()


def is_compiletime(annotation, globals_):
    """Whether a parameter annotation (possibly a string, with postponed annotations) is compiletime(...)."""
    if isinstance(annotation, str):
        try:
            annotation = eval(annotation, globals_)  # noqa: S307 - the user's own annotation
        except Exception:
            return annotation.replace(" ", "").startswith(("compiletime(", "compiletime["))
    return isinstance(annotation, CompileTime)
