/**
 * While other requests are about, one key's heavy reading (a page of many rows, a stream's later
 * batch) rests this many times as long as it took before the next: it then takes at most a third
 * of the database, and the others get the rest. KeyTurns (pages) and the streams' lane (the
 * container) both rest by it.
 */
export const HEAVY_REST_RATIO = 2;

/**
 * Requests being served, the long streams among them, and when one last arrived or ended: the
 * lane the streams read the database in gives way while other requests are about (see the
 * container). The moment counts as well as the number, because on PGlite every queued query runs
 * in one go: when a stream's batch ends, the requests waiting behind it have all been answered,
 * and the next ones are not even read yet. The HTTP app tells it; the container's lane asks it.
 */
export class RequestActivity {
  private count = 0;
  private streaming = 0;
  private waitingForStreams = 0;
  private pagesShared = 0;
  private lastChange = Number.NEGATIVE_INFINITY;

  /** A request has arrived; call the answer once it has ended (answered, or its client gone). */
  arrived(): () => void {
    this.count += 1;
    this.lastChange = performance.now();
    return () => {
      this.count -= 1;
      this.lastChange = performance.now();
    };
  }

  /** A request has become a long stream; call the answer once, when the stream is over. */
  streamStarted(): () => void {
    this.streaming += 1;
    return () => {
      this.streaming -= 1;
    };
  }

  /**
   * A request is waiting for a place among the long streams (StreamLimits): it waits for no
   * query meanwhile. Call the answer once, when it has a place or has given up.
   */
  streamWaiting(): () => void {
    this.waitingForStreams += 1;
    return () => {
      this.waitingForStreams -= 1;
    };
  }

  /**
   * A page of many rows is being read while other keys are about (KeyTurns); call the answer
   * once, when its answer is over. Meanwhile PGlite reads pages in small parts (see the container).
   */
  sharedPageStarted(): () => void {
    this.pagesShared += 1;
    return () => {
      this.pagesShared -= 1;
    };
  }

  /** Pages of many rows being read while other keys are about. */
  get sharedPages(): number {
    return this.pagesShared;
  }

  /** Requests arrived and not yet answered, streams included. */
  get inFlight(): number {
    return this.count;
  }

  /** Long streams running now. */
  get streams(): number {
    return this.streaming;
  }

  /** Requests waiting for a place among the long streams. */
  get streamsWaiting(): number {
    return this.waitingForStreams;
  }

  /** Milliseconds since a request last arrived or ended. */
  quietFor(): number {
    return performance.now() - this.lastChange;
  }
}
