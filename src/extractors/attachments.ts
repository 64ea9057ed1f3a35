// Attachments are never entities: a link or embed whose target is a file other than a note (by its extension).
const FILE_EXTENSION = /\.([a-z\d]+)$/i;

// Files a vault holds besides its notes: images, documents, audio, video, archives, data, drawings. A link or embed
// that ends in one of these names an attachment, never a page (`![[lucide-cog.svg#icon]]`, `[[report.pdf]]`).
const ATTACHMENT_EXTENSIONS = new Set([
  'png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'bmp', 'ico', 'tif', 'tiff', 'avif', 'heic', 'heif', 'jxl',
  'pdf', 'doc', 'docx', 'odt', 'rtf', 'xls', 'xlsx', 'ods', 'ppt', 'pptx', 'odp', 'epub', 'txt', 'csv', 'tsv', 'json', 'xml', 'yaml', 'yml',
  'mp3', 'wav', 'ogg', 'oga', 'm4a', 'flac', 'aac', 'opus', 'weba', '3gp',
  'mp4', 'webm', 'mov', 'mkv', 'avi', 'ogv', 'm4v', 'wmv',
  'zip', 'gz', 'tgz', 'tar', '7z', 'rar', 'bz2', 'xz', 'dmg', 'exe', 'msi', 'apk', 'deb', 'rpm', 'iso',
  'canvas', 'excalidraw', 'drawio', 'psd', 'ai', 'sketch', 'fig', 'blend', 'stl', 'obj',
  'ttf', 'otf', 'woff', 'woff2', 'html', 'htm', 'css', 'sqlite', 'db', 'base',
]);

/**
 * Whether a link target names an attachment (an image, a PDF, a recording…) rather than a page, by its extension.
 * A target that resolves to a page is a page whatever its name (`[[Node.js]]`); callers check that first.
 */
export function isAttachmentTarget(target: string): boolean {
  const file = target.slice(target.lastIndexOf('/') + 1);
  const extension = FILE_EXTENSION.exec(file)?.[1];
  return extension !== undefined && ATTACHMENT_EXTENSIONS.has(extension.toLowerCase());
}

