/* axes.js — labelled axes drawn as SVG around a plot area: a frame, tick marks with their
 * values and a title per side, so that the labels are text (readable, selectable, and
 * seen by the browser test) rather than pixels. */

const NS = 'http://www.w3.org/2000/svg';

function el(name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/* Draws into svg (emptied) a frame around the plot area {x, y, w, h} (pixels) and, for
 * each side given ('left', 'bottom', 'top'), {title, ticks: [{at, label}]} with at in
 * pixels along that side from the area's top or left edge. */
export function drawAxes(svg, area, sides) {
  svg.textContent = '';
  const { x, y, w, h } = area;
  svg.appendChild(el('rect', { x, y, width: w, height: h, class: 'axis-frame' }));
  for (const [side, axis] of Object.entries(sides)) {
    const g = el('g', { class: 'axis axis-' + side });
    for (const t of axis.ticks) {
      let line, label;
      if (side === 'left') {
        line = el('line', { x1: x - 5, x2: x, y1: y + t.at, y2: y + t.at });
        label = el('text', { x: x - 8, y: y + t.at, 'text-anchor': 'end',
          'dominant-baseline': 'middle', class: 'tick-label' }, t.label);
      } else {
        const yy = side === 'bottom' ? y + h : y;
        const dir = side === 'bottom' ? 1 : -1;
        line = el('line', { x1: x + t.at, x2: x + t.at, y1: yy, y2: yy + 5 * dir });
        label = el('text', { x: x + t.at, y: yy + 16 * dir + (dir < 0 ? 4 : 0),
          'text-anchor': 'middle', class: 'tick-label' }, t.label);
      }
      g.append(line, label);
    }
    let title;
    if (side === 'left') {
      const cx = x - 46, cy = y + h / 2;
      title = el('text', { x: cx, y: cy, 'text-anchor': 'middle',
        transform: `rotate(-90 ${cx} ${cy})`, class: 'axis-title' }, axis.title);
    } else if (side === 'bottom') {
      title = el('text', { x: x + w / 2, y: y + h + 34, 'text-anchor': 'middle',
        class: 'axis-title' }, axis.title);
    } else {
      title = el('text', { x: x + w / 2, y: y - 26, 'text-anchor': 'middle',
        class: 'axis-title' }, axis.title);
    }
    g.appendChild(title);
    svg.appendChild(g);
  }
}
