from gt4py.cartesian import gtscript


@gtscript.function
def twice(x):
    return 2.0 * x
