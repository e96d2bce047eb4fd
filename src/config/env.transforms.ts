// Environment values arrive as strings: these turn the ones that look right into their types
// and leave the rest for the validators to name.
export const toBool = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return value;
  const v = value.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return value;
};
export const toNumber = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
};
export const toInt = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
};
