/**
 * A boolean from JSON, a query string or a form: true, `true`, `on`, `1` are true; false, `false`, `0` are false.
 * Anything else is left as it came, so that the field's @IsBoolean refuses it with a 400 naming the field: `"yes"`
 * is no answer to a yes-or-no field, and reading it as false (as the page DTOs once did) silently did what was not asked.
 */
export const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === true || value === 'true' || value === 'on' || value === '1' ? true : value === false || value === 'false' || value === '0' ? false : value;

/**
 * A number from JSON, a query string or a form: a number stays, a text that is a plain decimal number (`12`, `-0.5`,
 * `1e3`) becomes one. Anything else is left as it came, so that the field's @IsInt or @IsNumber refuses it with a 400
 * naming the field: `true` is not version 1, nor `[3]` page 3 (class-transformer's @Type(() => Number) made them so).
 */
export const toNumber = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value) ? Number(value) : value;
