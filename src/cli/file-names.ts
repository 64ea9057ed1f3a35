const MARKDOWN_EXTENSION = /\.(?:md|markdown)$/i;
// Characters no common file system accepts in a name (or that a shell or a vault tool would misread), plus `%`
// itself so that decoding is exact. C0/C1 control characters included.
const UNSAFE_IN_FILE_NAME = /[/\\:*?"<>|%\u0000-\u001f\u007f-\u009f]/g;
const PERCENT_RUN = /(?:%[0-9a-f]{2})+/gi;

export function isMarkdownFileName(name: string): boolean {
  return MARKDOWN_EXTENSION.test(name);
}

/** The file name (without `.md`) a page title is exported as: unsafe characters and a leading `.` percent-encoded. */
export function fileNameOfTitle(title: string): string {
  const encoded = title.replace(UNSAFE_IN_FILE_NAME, percentEncode);
  // A leading dot would make the file hidden, and `..` a path step.
  return encoded.startsWith('.') ? `%2E${encoded.slice(1)}` : encoded;
}

/** The page title a Markdown file name stands for: the name without its extension, percent-decoded. */
export function titleOfFileName(fileName: string): string {
  return fileName.replace(MARKDOWN_EXTENSION, '').replace(PERCENT_RUN, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      // Not UTF-8 once decoded (e.g. a name that merely contains "%ff"): the name is taken as written.
      return run;
    }
  });
}

function percentEncode(char: string): string {
  const code = char.charCodeAt(0);
  // C1 controls need their UTF-8 bytes, which encodeURIComponent gives; ASCII needs `*` too, which it leaves alone.
  return code > 0x7f ? encodeURIComponent(char) : `%${code.toString(16).toUpperCase().padStart(2, '0')}`;
}
