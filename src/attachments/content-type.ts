import { fileTypeFromBuffer } from 'file-type';

// Enough of a file's start to tell text from binary and to find an SVG or HTML root element.
const SNIFF_BYTES = 4096;

/**
 * The media type of a file from its bytes, never from its name or from what the uploader claims: binary formats by
 * their signature (the `file-type` package), then text formats by their content: SVG, HTML and XML (which a browser
 * could run script in) are told apart from plain text. Anything else is `application/octet-stream`.
 */
export async function sniffMediaType(bytes: Uint8Array): Promise<string> {
  const detected = await fileTypeFromBuffer(bytes);
  if (detected) return detected.mime === 'application/xml' || detected.mime === 'text/xml' ? textTypeOf(bytes) ?? detected.mime : detected.mime;
  return textTypeOf(bytes) ?? 'application/octet-stream';
}

function textTypeOf(bytes: Uint8Array): string | null {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return null;
  let text: string;
  try {
    // A cut in the middle of a multi-byte character at the end of the sample is not an error.
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: bytes.length > SNIFF_BYTES });
  } catch {
    return null;
  }
  const xmlDeclared = /^\uFEFF?\s*<\?xml/i.test(text);
  const start = text.replace(/^\uFEFF/, '').replace(/^(?:\s+|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE\s+svg[^>]*>)*/i, '');
  if (/^<(?:[a-z][\w.-]*:)?svg[\s>/]/i.test(start)) return 'image/svg+xml';
  // The tags a browser's sniffer takes a document for HTML by (WHATWG MIME Sniffing).
  if (/^<(?:!doctype\s+html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p)[\s>/]/i.test(start)) return 'text/html';
  if (xmlDeclared || /^<[a-z][\w.:-]*[\s>/]/i.test(start)) return 'application/xml';
  return 'text/plain';
}

/** Types a browser shows safely as they are: no script can run in them, and nosniff keeps it so. */
const INLINE_TYPES = new Set([
  'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'image/apng', 'image/x-icon',
  'image/vnd.microsoft.icon', 'application/pdf', 'text/plain',
]);

export interface ServingRule {
  /** false: the file is sent as a download (Content-Disposition: attachment), whatever asks for it. */
  inline: boolean;
  contentType: string;
  contentSecurityPolicy: string;
}

// No script, no plugin, no form, no request to anywhere: the file is all the document may show. Framed only by the
// wiki's own pages (PDF embeds); `style-src 'unsafe-inline'` lets the browser's own image and text viewers lay out.
const FILE_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox; frame-ancestors 'self'";
// A browser's PDF viewer is a plugin, and `sandbox` forbids plugins: a PDF is shown unsandboxed, with no script,
// connection or form of the wiki's origin allowed (`default-src 'none'`); its viewer runs apart from the page.
const PDF_CSP = "default-src 'none'; object-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'";

/**
 * How a stored file is served. SVG, HTML, XML and every type not known to be inert are downloads: never rendered as
 * a document from the wiki's origin (an `<img>` of an SVG still shows it, and an image never runs script).
 */
export function servingRuleOf(mediaType: string): ServingRule {
  const inline = INLINE_TYPES.has(mediaType) || mediaType.startsWith('audio/') || mediaType.startsWith('video/');
  return {
    inline,
    contentType: mediaType === 'text/plain' ? 'text/plain; charset=utf-8' : mediaType,
    contentSecurityPolicy: mediaType === 'application/pdf' ? PDF_CSP : FILE_CSP,
  };
}
