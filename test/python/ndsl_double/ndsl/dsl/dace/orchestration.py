"""NDSL's orchestration entry points. The real ones hand the method to DaCe; this double has
no DaCe, so a compiled mode is refused: orch.ndsl.install() replaces these."""


def dace_inhibitor(func):
    return func


def orchestrate(*, obj, config, method_to_orchestrate="__call__", dace_compiletime_args=None):
    if config.is_dace_orchestrated():
        raise RuntimeError("the NDSL test double has no DaCe: call orch.ndsl.install() before constructing components")


def orchestrate_function(config=None, dace_compiletime_args=None):
    def decorator(func):
        if config is not None and config.is_dace_orchestrated():
            raise RuntimeError("the NDSL test double has no DaCe: call orch.ndsl.install() first")
        return func

    return decorator
