/* segy.js — reads a SEG-Y rev 1 receiver gather in the browser (the gather.segy fdwaved
 * writes, engine/output/segy_gather.c, or any like it): the binary header's sample
 * interval and count, then per trace its samples (IEEE or IBM float, big-endian) and
 * positions: receiver group x/y (bytes 81/85) and depth (minus the group elevation, 41),
 * source x/y (73/77) and depth (49), scaled by the scalars at bytes 69 and 71. */

/* SEG-Y scalar: positive multiplies, negative divides, 0 is 1. */
const scaled = (v, s) => (s > 0 ? v * s : s < 0 ? v / -s : v);

/* IBM System/360 single precision to a number. */
function ibm(u) {
  const sign = u >>> 31 ? -1 : 1;
  const exp = (u >>> 24) & 0x7f;
  const frac = u & 0x00ffffff;
  return sign * (frac / 0x1000000) * Math.pow(16, exp - 64);
}

/* {ns, dt (s), ntraces, data (Float32Array, trace after trace), receivers: [[x, y, z]],
 * sources: [[x, y, z]]}; throws an Error saying what does not fit. */
export function readSegy(buf) {
  const dv = new DataView(buf);
  if (buf.byteLength < 3600) throw new Error('shorter than the SEG-Y headers');
  const dtUs = dv.getUint16(3216);
  const ns = dv.getUint16(3220);
  const format = dv.getUint16(3224);
  const extended = dv.getInt16(3504);
  if (format !== 5 && format !== 1)
    throw new Error(`sample format ${format} (only IEEE 5 and IBM 1 are read here)`);
  const start = 3600 + 3200 * Math.max(0, extended);
  const traceBytes = 240 + 4 * ns;
  if (ns === 0 || (buf.byteLength - start) % traceBytes !== 0)
    throw new Error(`${buf.byteLength - start} bytes of traces are no whole number of ` +
      `${ns}-sample traces`);
  const ntraces = (buf.byteLength - start) / traceBytes;
  const data = new Float32Array(ntraces * ns);
  const receivers = [], sources = [];
  for (let t = 0; t < ntraces; t++) {
    const h = start + t * traceBytes;
    const se = dv.getInt16(h + 68), sc = dv.getInt16(h + 70);
    receivers.push([scaled(dv.getInt32(h + 80), sc), scaled(dv.getInt32(h + 84), sc),
      -scaled(dv.getInt32(h + 40), se)]);
    sources.push([scaled(dv.getInt32(h + 72), sc), scaled(dv.getInt32(h + 76), sc),
      scaled(dv.getInt32(h + 48), se)]);
    for (let s = 0; s < ns; s++) {
      const o = h + 240 + 4 * s;
      data[t * ns + s] = format === 5 ? dv.getFloat32(o) : ibm(dv.getUint32(o));
    }
  }
  return { ns, dt: dtUs * 1e-6, ntraces, data, receivers, sources };
}

/* Horizontal source-receiver offsets, signed along the receiver sequence: positive on
 * the side the last receiver lies (from the first), negative on the other. */
export function signedOffsets(receivers, sources) {
  const first = receivers[0], last = receivers[receivers.length - 1];
  const ux = last[0] - first[0], uy = last[1] - first[1];
  return receivers.map((r, i) => {
    const dx = r[0] - sources[i][0], dy = r[1] - sources[i][1];
    const d = Math.hypot(dx, dy);
    return dx * ux + dy * uy < 0 ? -d : d;
  });
}
