import { randomBytes } from 'node:crypto';

/**
 * HTML the renderer made itself and the sanitiser must not touch: KaTeX's MathML, and the frame of an embedded PDF
 * (the sanitiser lets no author write a frame). Each piece waits in a slot while the page is sanitised, marked by a
 * placeholder no author can write (its class holds a nonce of this render), and is put back afterwards.
 */
export class TrustedHtmlSlots {
  readonly html: string[] = [];
  // Unguessable, so that no author can write a slot of their own.
  readonly nonce = randomBytes(9).toString('base64url').replace(/[^A-Za-z0-9]/g, 'x');

  placeholder(html: string): string {
    return `<span class="kslot-${this.nonce}-${this.html.push(html) - 1}"></span>`;
  }

  /** Puts the pieces back into sanitised HTML. */
  restore(html: string): string {
    if (this.html.length === 0) return html;
    return html.replace(new RegExp(`<span class="kslot-${this.nonce}-(\\d+)"></span>`, 'g'), (_m, i: string) => this.html[Number(i)] ?? '');
  }
}

/** What the renderer keeps in markdown-it's env for its own HTML. */
export interface TrustedHtmlEnv {
  trusted?: TrustedHtmlSlots;
}
