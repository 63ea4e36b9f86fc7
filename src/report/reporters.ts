import { renderHtml } from './html-reporter.js';
import { writeDocument } from './json-reporter.js';
import { renderJunit } from './junit-reporter.js';
import { renderMarkdown } from './markdown-reporter.js';
import type { Reporter } from './reporter.js';
import type { RunDiff } from './run-diff.js';
import { renderingReporter, type RenderReport, type ReportTarget } from './sink.js';
import { tableReporter } from './table-reporter.js';

/** Every output format, by the name `--reporter` and `evalrun report --format` take. */
export const REPORT_FORMATS = ['table', 'json', 'junit', 'markdown', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Formats written to a file beside the JSON scorecard unless given a path; the others go to stdout. */
export const FILE_EXTENSIONS: Readonly<Partial<Record<ReportFormat, string>>> = { junit: '.xml', markdown: '.md', html: '.html' };

/** `--reporter NAME` or `--reporter NAME=FILE`. */
export interface ReporterChoice {
  format: ReportFormat;
  /** Null: the format's default place (stdout, or beside the scorecard). */
  file: string | null;
}

export function isReportFormat(name: string): name is ReportFormat {
  return (REPORT_FORMATS as readonly string[]).includes(name);
}

/** Parses `NAME` or `NAME=FILE`; the message says what was wrong. */
export function parseReporterChoice(text: string): ReporterChoice | { error: string } {
  const at = text.indexOf('=');
  const name = at < 0 ? text : text.slice(0, at);
  const file = at < 0 ? null : text.slice(at + 1);
  if (!isReportFormat(name)) return { error: `unknown reporter "${name}" (expected one of ${REPORT_FORMATS.join(', ')})` };
  if (file === '') return { error: `--reporter ${name}=FILE needs a file name` };
  return { format: name, file };
}

/** `results/<run>.xml` beside `results/<run>.json`, and so on. */
export function fileBeside(scorecard: string, format: ReportFormat): string | null {
  const extension = FILE_EXTENSIONS[format];
  if (extension === undefined) return null;
  return `${scorecard.endsWith('.json') ? scorecard.slice(0, -'.json'.length) : scorecard}${extension}`;
}

export interface RenderOptions {
  /** The table lists every candidate and failing test. */
  details: boolean;
  /** The HTML report compares the run with this one (`--baseline`). */
  baseline: RunDiff | null;
}

/** The renderer of a format: each lives in a file of its own. */
export function rendererFor(format: ReportFormat, options: RenderOptions): RenderReport {
  switch (format) {
    case 'table':
      return (outcome, write) => void tableReporter({ write, details: options.details }).onRunEnd?.(outcome);
    case 'json':
      return writeDocument;
    case 'junit':
      return renderJunit;
    case 'markdown':
      return renderMarkdown;
    case 'html':
      return (outcome, write) => renderHtml(outcome, write, { baseline: options.baseline });
  }
}

/** The reporter for a `--reporter` choice of a run whose scorecard is `scorecard`. */
export function reporterFor(choice: ReporterChoice, scorecard: string, options: RenderOptions & { announce: (file: string) => void }): Reporter {
  const target: ReportTarget = { file: choice.file ?? fileBeside(scorecard, choice.format), announce: options.announce };
  return renderingReporter(rendererFor(choice.format, options), target);
}
