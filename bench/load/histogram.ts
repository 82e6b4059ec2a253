// Latency histogram in the manner of HdrHistogram: log-linear buckets over integer
// microseconds with 64–128 sub-buckets per power of two, so any recorded value is kept within
// 1/64 (≈1.6 %) of itself, memory is fixed (~1,800 counters up to 71 minutes) and histograms
// from several load processes merge by adding counters.

const SUB_BITS = 7; // 128 exact values below 128 µs, then 64 sub-buckets per power of two
const SUB_COUNT = 1 << SUB_BITS;
const HALF = SUB_COUNT >> 1;
const MAX_US = 2 ** 32 - 1;
const SIZE = indexOf(MAX_US) + 1;

function indexOf(us: number): number {
  const v = us < 0 ? 0 : us > MAX_US ? MAX_US : Math.floor(us);
  const shift = Math.max(0, 32 - Math.clz32(v) - SUB_BITS);
  return shift === 0 ? v : shift * HALF + (v >>> shift);
}

/** Highest value (µs) that lands in bucket `i`: percentiles err on the slow side. */
function upperOf(i: number): number {
  if (i < SUB_COUNT) return i;
  const shift = Math.floor((i - SUB_COUNT) / HALF) + 1;
  const sub = i - shift * HALF;
  return (sub + 1) * 2 ** shift - 1;
}

export interface LatencySummary {
  count: number;
  mean_ms: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  p999_ms: number;
  max_ms: number;
}

export class Histogram {
  readonly counts = new Float64Array(SIZE);
  count = 0;
  sumUs = 0;
  maxUs = 0;

  record(us: number): void {
    this.counts[indexOf(us)]!++;
    this.count++;
    this.sumUs += us;
    if (us > this.maxUs) this.maxUs = us;
  }

  /** Value (µs) at or below which `q` (0..1) of the recorded values fall. */
  quantileUs(q: number): number {
    if (this.count === 0) return 0;
    const target = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < SIZE; i++) {
      seen += this.counts[i]!;
      if (seen >= target) return Math.min(upperOf(i), this.maxUs);
    }
    return this.maxUs;
  }

  merge(other: Histogram | SerializedHistogram): void {
    const h = other instanceof Histogram ? other.serialize() : other;
    for (const [i, c] of h.buckets) this.counts[i]! += c;
    this.count += h.count;
    this.sumUs += h.sumUs;
    if (h.maxUs > this.maxUs) this.maxUs = h.maxUs;
  }

  /** Sparse form, small enough to send over IPC. */
  serialize(): SerializedHistogram {
    const buckets: [number, number][] = [];
    for (let i = 0; i < SIZE; i++) if (this.counts[i]! > 0) buckets.push([i, this.counts[i]!]);
    return { buckets, count: this.count, sumUs: this.sumUs, maxUs: this.maxUs };
  }

  summary(): LatencySummary {
    const ms = (us: number) => Math.round(us) / 1000;
    return {
      count: this.count,
      mean_ms: this.count ? ms(this.sumUs / this.count) : 0,
      p50_ms: ms(this.quantileUs(0.5)),
      p90_ms: ms(this.quantileUs(0.9)),
      p99_ms: ms(this.quantileUs(0.99)),
      p999_ms: ms(this.quantileUs(0.999)),
      max_ms: ms(this.maxUs),
    };
  }
}

export interface SerializedHistogram {
  buckets: [number, number][];
  count: number;
  sumUs: number;
  maxUs: number;
}
