"""The catalog as the editor shows it, without Qt: one-line specs of an entry
(palette, Properties, tooltips) and the palette's search."""
