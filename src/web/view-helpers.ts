import type { HelperDelegate } from 'handlebars';

type Handlebars = { registerHelper(name: string, fn: HelperDelegate): void; SafeString: new (s: string) => unknown };

/** Small, pure helpers the views use; anything with logic belongs in a controller's view model. */
export function registerViewHelpers(handlebars: Handlebars): void {
  handlebars.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  handlebars.registerHelper('encode', (s: unknown) => encodeURIComponent(String(s ?? '')));
  handlebars.registerHelper('date', (d: unknown) => (d instanceof Date ? d : new Date(String(d))).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');
  handlebars.registerHelper('time', (d: unknown) => (d instanceof Date ? d : new Date(String(d))).toISOString().slice(11, 16));
  handlebars.registerHelper('isoDate', (d: unknown) => (d instanceof Date ? d : new Date(String(d))).toISOString());
  handlebars.registerHelper('plural', (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`);
}
