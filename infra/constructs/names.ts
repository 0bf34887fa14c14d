/** `events-ingest` → `EventsIngest`, `main` → `Main`: construct ids and output keys are PascalCase. */
export const pascalCase = (kebab: string): string =>
  kebab
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
