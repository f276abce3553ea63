// Charts are SVG drawn on the server: no chart library, no script, and no inline styles (the CSP forbids them).
// Horizontal positions are percentages of the width, so a chart fits any screen with its text at full size.

/** A number as an SVG coordinate: short, and never exponent notation. */
export const pct = (x: number) => `${(Math.round(x * 100) / 100).toFixed(2)}%`;
