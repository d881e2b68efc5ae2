import { join } from 'node:path';
import {
  CHART_DIR,
  MEASURED_PAGE,
  publishedResults,
  renderBenchPages,
  svgChart,
} from './bench-pages';

/** A repository holding one published scaling run (commit b74cb61, module state at 10k–1M). */
const root = join(__dirname, '__fixtures__', 'bench-root');

describe('renderBenchPages', () => {
  const files = renderBenchPages(publishedResults(root));
  const page = files[0];

  it('says what each result was measured on: commit, version, date, machine, profile', () => {
    expect(page.path).toBe(MEASURED_PAGE);
    expect(page.text).toContain('## scaling');
    expect(page.text).toContain(
      'Measured on commit `b74cb61`, version 0.1.0, 2026-12-03T18:54:48.276Z; Node v20.20.2, 2 × AMD EPYC',
    );
  });

  it('tables the top-level figures and every series of rows, numbers as a reader wants them', () => {
    expect(page.text).toContain('| `once_rps_64` | 12,346 |');
    expect(page.text).toContain('### module state by entities');
    expect(page.text).toMatch(/\| 1,000,000 \| 6,434 \| 2,891 \| 0\.12 \|/);
    expect(page.text).not.toContain('### throughput by connections'); // an empty series
  });

  it('draws one SVG per curve of a series with two points or more, and links it', () => {
    const charts = files.slice(1).map((file) => file.path);
    expect(charts).toEqual([
      `${CHART_DIR}/scaling-module_state_by_entities-rps.svg`,
      `${CHART_DIR}/scaling-module_state_by_entities-p99_ms_at_half_peak.svg`,
      `${CHART_DIR}/scaling-module_state_by_entities-restart_ms.svg`,
    ]);
    expect(page.text).toContain(
      '![rps by entities](charts/scaling-module_state_by_entities-rps.svg)',
    );
  });

  it('says so when nothing is published', () => {
    expect(renderBenchPages([])[0].text).toContain('No run is published yet.');
  });
});

describe('svgChart', () => {
  it('places points on a log x axis when x grows tenfold a step, highest y near the top', () => {
    const svg = svgChart(
      [
        [10, 5],
        [100, 10],
        [1000, 0],
      ],
      'entities',
      'rps',
      't',
    );
    expect(svg).toContain('entities (log scale)');
    expect(svg).toContain('<path d="M64.0,');
    // x = 100 sits half way between 64 and 464; y = 10 of an axis 11 high sits 1/11 of 188 px below the top (32)
    expect(svg).toContain('L264.0,49.1');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  });
});
