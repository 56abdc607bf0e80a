/**
 * The intern tables of the Struct decoder's fast path (./build.ts): short
 * strings made once from their UTF-8 bytes and shared, each with an id the
 * object shapes (./shapes.ts) key their edges by.
 */

/** Node's Buffer slicer (the fast path of toString('latin1')); @types/node does not declare it. */
interface Latin1 {
  latin1Slice(start: number, end: number): string;
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** buf[s, e) as a string: ASCII by latin1Slice, else the object path's TextDecoder. */
export function slice(buf: Buffer, s: number, e: number): string {
  for (let i = s; i < e; i++) {
    if (buf[i]! >= 0x80) return decoder.decode(buf.subarray(s, e));
  }
  return (buf as unknown as Latin1).latin1Slice(s, e);
}

/** The longest string interned, in bytes. */
const SLOT = 32;

/** The largest key id before {@link Interned} starts its ids afresh. */
const MAX_ID = 0x3fffffff;

/**
 * An intern table: direct-mapped by a hash of the bytes, each slot the bytes
 * (up to {@link SLOT}) and their string.
 *
 * Each string a slot takes gets a new id ({@link Interned.id}): an id names
 * one string for as long as the ids last, so the object shapes (./shapes.ts)
 * can key their edges by it. When the ids run out (after {@link MAX_ID} strings)
 * every slot is emptied and `onIdsReset` is called.
 */
export class Interned {
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readonly lengths: Int32Array;
  private readonly strings: string[];
  private readonly ids: Int32Array;
  private lastId = 0;
  /** The id of the string {@link get} returned last; -1 when it was too long to intern. */
  id = -1;
  constructor(
    private readonly slots: number,
    private readonly onIdsReset: () => void,
  ) {
    this.bytes = new Uint8Array(slots * SLOT);
    this.view = new DataView(this.bytes.buffer);
    this.lengths = new Int32Array(slots).fill(-1);
    this.strings = new Array<string>(slots).fill('');
    this.ids = new Int32Array(slots);
  }

  /**
   * The UTF-8 bytes buf[s, e) as a string (`view` is a DataView of `buf`),
   * interned when at most {@link SLOT} bytes long. Hashes and compares four
   * bytes at a time (FNV-1a over 4-byte words, then the tail bytes).
   */
  get(buf: Buffer, view: DataView, s: number, e: number): string {
    const n = e - s;
    if (n > SLOT) {
      this.id = -1;
      return slice(buf, s, e);
    }
    let h = 0x811c9dc5 ^ n;
    let i = s;
    for (; i + 4 <= e; i += 4) h = Math.imul(h ^ view.getInt32(i, true), 0x01000193);
    for (; i < e; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
    const slot = (h ^ (h >>> 15)) & (this.slots - 1);
    const at = slot * SLOT;
    if (this.lengths[slot] === n && this.holds(at, buf, view, s, n)) {
      this.id = this.ids[slot]!;
      return this.strings[slot]!;
    }
    const v = slice(buf, s, e);
    if (this.lastId === MAX_ID) this.restartIds();
    this.bytes.set(buf.subarray(s, e), at);
    this.lengths[slot] = n;
    this.strings[slot] = v;
    this.lastId++;
    this.ids[slot] = this.lastId;
    this.id = this.lastId;
    return v;
  }

  /** Empties every slot and starts the ids afresh (when they run out). */
  restartIds(): void {
    this.lastId = 0;
    this.lengths.fill(-1);
    this.onIdsReset();
  }

  /** Whether the slot at byte `at` holds the `n` bytes at buf[s]. */
  private holds(at: number, buf: Buffer, view: DataView, s: number, n: number): boolean {
    if (n < 4) {
      const bytes = this.bytes;
      for (let j = 0; j < n; j++) if (bytes[at + j] !== buf[s + j]) return false;
      return true;
    }
    // 4-byte words; the last one overlaps the one before when n is not a multiple of 4
    const table = this.view;
    const last = n - 4;
    if (table.getInt32(at + last, true) !== view.getInt32(s + last, true)) return false;
    for (let j = 0; j < last; j += 4) if (table.getInt32(at + j, true) !== view.getInt32(s + j, true)) return false;
    return true;
  }
}
