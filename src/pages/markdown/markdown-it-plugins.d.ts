// Type declarations for the markdown-it plugins that ship none (their default export is a markdown-it plugin).
declare module 'markdown-it-mark' {
  import type { PluginSimple } from 'markdown-it';
  const mark: PluginSimple;
  export default mark;
}

declare module 'markdown-it-footnote' {
  import type { PluginSimple } from 'markdown-it';
  const footnote: PluginSimple;
  export default footnote;
}

declare module 'markdown-it-texmath' {
  import type { PluginWithOptions } from 'markdown-it';
  const texmath: PluginWithOptions<{
    engine: { renderToString(tex: string, options?: object): string };
    delimiters?: string | string[];
    katexOptions?: object;
  }>;
  export default texmath;
}

declare module 'markdown-it-obsidian-callouts' {
  import type { PluginWithOptions } from 'markdown-it';
  const callouts: PluginWithOptions<{ icons?: Record<string, string> }>;
  export default callouts;
}
