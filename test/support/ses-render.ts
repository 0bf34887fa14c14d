/**
 * What SES makes of a `SendBulkEmail`, entry by entry: the template's subject, HTML and text filled with the entry's
 * data merged over the defaults, with nothing escaped (SES "doesn't escape HTML content when rendering the HTML
 * template"). The local SES's own renderer (aws-ses-v2-local) does the filling, so a unit test sees what the local
 * runtime would store.
 */
import { compileTemplateParts, mergeTemplateData } from 'aws-ses-v2-local/dist/v2/renderTemplate.js';
import type { OutboundBulk } from '#shared/domain/email/model.ts';

export interface RenderedEntry {
  readonly to: string;
  readonly subject: string;
  readonly html: string;
  readonly text: string;
}

export const sesRender = (bulk: OutboundBulk): RenderedEntry[] => {
  const render = compileTemplateParts({ Subject: bulk.subject, Html: bulk.html, Text: bulk.text });
  return bulk.entries.map((entry) => ({
    to: entry.to.email,
    ...render(mergeTemplateData(bulk.defaultData, entry.data)),
  }));
};
