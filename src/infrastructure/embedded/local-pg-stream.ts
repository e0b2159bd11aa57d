import { Duplex } from 'node:stream';
import type { GateSession, PgliteGate } from './pglite-gate';

/**
 * What node-postgres takes for a socket (its `stream` option), connected to the embedded
 * database through the gate: this process's own connection goes through the same turn-taking
 * as the command-line tool's, without a socket of the operating system in between.
 */
export class LocalPgStream extends Duplex {
  private session: GateSession | null = null;

  constructor(private readonly gate: PgliteGate) {
    super();
    // pg learns that a connection is over from 'close'.
    this.once('end', () => this.destroy());
  }

  /** Called by pg instead of a TCP connect. */
  connect(): this {
    this.gate.pglite.waitReady.then(
      () => {
        if (this.destroyed) return;
        this.session = this.gate.open({
          write: (data) => this.push(Buffer.from(data)),
          end: () => this.push(null),
        });
        this.emit('connect');
      },
      (error: unknown) => this.destroy(error as Error),
    );
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.session?.receive(chunk);
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    void this.session?.close();
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    void this.session?.close();
    done(error);
  }
}
