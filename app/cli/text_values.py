"""A text parameter's value as Click read it, without importing pydantic.

Typer 0.29 coerces every parameter's value, given or defaulted, through a pydantic `TypeAdapter`
(`typer._coercion.build_runtime_param`, from `_TyperParameter.process_value`; pydantic is one of its
requirements, and no setting turns it off). For a `str` the adapter gives back the string Click
read, unchanged; importing pydantic to do it cost every command ~95 ms, a third of a read's start.
`plain_text` gives each of a command's parameters a coercion that returns a string as it came
where the parameter is a `str` (no parser), and hands any other value to Typer's own, built then
and kept: the same values and the same refusals, with pydantic imported only where a value needs it
(a number, a path, a list). Typer releases without `typer._coercion` are left as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

try:
    from typer._coercion import RuntimeParam, build_runtime_param
except ImportError:  # a Typer before 0.29, which coerces without pydantic
    RuntimeParam = None  # type: ignore[assignment,misc]


def plain_text(command: Any) -> Any:
    """`command` (and a group's subcommands), its parameters coerced as the module says."""
    plain_params(command.params)
    for sub in getattr(command, "commands", {}).values():
        plain_text(sub)
    return command


def plain_params(params: list[Any]) -> None:
    """The parameters themselves (of `morale`, whose commands are built as they are asked for)."""
    if RuntimeParam is None:
        return
    for param in params:
        if getattr(param, "_runtime_param", False) is None:  # a Typer parameter, not coerced yet
            param._runtime_param = TextAsRead(param.type_descriptor.parameter_info, param.type_descriptor.annotation)


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class TextAsRead(RuntimeParam):
        """A string for a `str` parameter as it is; anything else through Typer's own coercion."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            single = not (param.multiple or param.nargs == -1)
            if single and self.annotation is str and self.parameter_info.parser is None and isinstance(value, str):
                return value
            own = build_runtime_param(param.type_descriptor)
            param._runtime_param = own  # Typer's own from now on
            return own._coerce_value(value, param=param, ctx=ctx)
