"""Shapes as the C API's signature spells them ("(f32[2,3], (s32[], u8[4]))
-> pred[]"): arrays, tuples of shapes, tokens."""

import re

from . import _types


class ArrayShape:
    """An array: element type (`type`, the HLO name; `dtype`, numpy's) and
    dimensions (`dims`; a bounded dynamic dimension `<=N` reads as N)."""

    __slots__ = ("type", "dims")

    def __init__(self, type_name, dims):
        self.type = type_name
        self.dims = tuple(dims)

    @property
    def dtype(self):
        return _types.dtype_of(self.type)

    @property
    def element_type(self):
        """XLA's PrimitiveType number."""
        return _types.number_of(self.type)

    def __eq__(self, other):
        return (isinstance(other, ArrayShape) and self.type == other.type and
                self.dims == other.dims)

    def __hash__(self):
        return hash((self.type, self.dims))

    def __repr__(self):
        return f"{self.type}[{','.join(map(str, self.dims))}]"


class TokenShape:
    """A token: no data; passed and returned as None."""

    def __eq__(self, other):
        return isinstance(other, TokenShape)

    def __hash__(self):
        return hash("token")

    def __repr__(self):
        return "token[]"


# Tuple shapes are Python tuples of shapes.

# Long tuples carry "/*index=5*/" comments, as XLA prints them.
_TOKEN = re.compile(r"\s*(?:/\*.*?\*/\s*)*(->|[()\[\],{}]|<=|[A-Za-z0-9_?]+)")


def _tokens(text):
    pos, out = 0, []
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            if text[pos:].strip():
                raise ValueError(f"bad shape text at {pos}: {text!r}")
            break
        out.append(m.group(1))
        pos = m.end()
    return out


class _Reader:
    def __init__(self, text):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else ""

    def take(self, expected=None):
        tok = self.peek()
        if expected is not None and tok != expected:
            raise ValueError(f"expected {expected!r}, got {tok!r} in "
                             f"{self.text!r}")
        self.i += 1
        return tok

    def shape_list(self):
        self.take("(")
        out = []
        while self.peek() != ")":
            out.append(self.shape())
            if self.peek() == ",":
                self.take()
        self.take(")")
        return tuple(out)

    def shape(self):
        if self.peek() == "(":
            return self.shape_list()
        name = self.take()
        self.take("[")
        dims = []
        while self.peek() != "]":
            if self.peek() == "<=":
                self.take()
            dim = self.take()
            dims.append(-1 if dim == "?" else int(dim))
            if self.peek() == ",":
                self.take()
        self.take("]")
        if self.peek() == "{":  # a layout: not needed by the bindings
            while self.take() != "}":
                pass
        return TokenShape() if name == "token" else ArrayShape(name, dims)


def parse_shape(text):
    """A shape from its HLO text ("(f32[2], s32[])")."""
    reader = _Reader(text)
    shape = reader.shape()
    if reader.peek():
        raise ValueError(f"trailing text in shape {text!r}")
    return shape


def parse_signature(text):
    """(parameter shapes, result shape) from "(P0, P1) -> R"."""
    reader = _Reader(text)
    parameters = reader.shape_list()
    reader.take("->")
    result = reader.shape()
    if reader.peek():
        raise ValueError(f"trailing text in signature {text!r}")
    return parameters, result


def leaves(shape):
    """The array leaves of `shape`, depth first (tokens have none)."""
    if isinstance(shape, tuple):
        return [leaf for element in shape for leaf in leaves(element)]
    return [shape] if isinstance(shape, ArrayShape) else []
