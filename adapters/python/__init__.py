"""The bundled Python adapter: the reference itself, behind the adapter protocol."""
