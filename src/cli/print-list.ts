import type { CliOutput } from './cli-io';
import { printLine } from './write-text';

/** How a listing command shows its items. */
export interface ListView<T> {
  /** One item as --json prints it. */
  json(item: T): unknown;
  /** The line printed instead of an empty list. */
  none: string;
  /** All the items, as lines for a terminal. */
  text(items: T[]): string;
}

/** What a listing command prints: with --json a JSON array, empty or not; else its lines, or `none`. */
export function printList<T>(out: CliOutput, items: T[], json: boolean, view: ListView<T>): void {
  if (json)
    printLine(
      out,
      JSON.stringify(
        items.map((item) => view.json(item)),
        null,
        2,
      ),
    );
  else printLine(out, items.length === 0 ? view.none : view.text(items));
}
