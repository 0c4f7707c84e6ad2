// The playground's statistics view (served by src/graphql/playground.ts, run after
// playground.js): a form for the question (filter, dimensions, ε), its free preview, then the
// answer drawn (a bar chart by one dimension, a table of shaded cells by two, each number with
// its 95 % interval), the key's privacy budget, and a CSV of exactly the published answer.
// Plain DOM, no framework; everything is built with createElement and textContent.
(function () {
  'use strict';

  const page = window.candidateDirectory;
  const root = document.getElementById('cd-statistics');
  const SVG = 'http://www.w3.org/2000/svg';

  const QUESTION_FIELDS = `locations nationalities occupations languages { language minSpokenLevel minWrittenLevel }
    minYearsExperience maxYearsExperience minEducationLevel maxEducationLevel minAge maxAge exams { exam minScore }
    keyword inSavedLists notInSavedLists includeEmployed groupBy epsilon`;
  const ARGUMENTS =
    '$filter: CandidateFilter, $includeEmployed: Boolean, $groupBy: [CandidateDimension!]!, $epsilon: Float';
  const PASSED = 'filter: $filter, includeEmployed: $includeEmployed, groupBy: $groupBy, epsilon: $epsilon';
  const STATISTICS = `query PlaygroundStatistics(${ARGUMENTS}) {
  candidateStatistics(${PASSED}) {
    question { ${QUESTION_FIELDS} }
    total totalInterval { low high }
    cells { values { dimension code label } count interval { low high } }
    confidence sensitivity minimumCellSize epsilon epsilonCharged budget budgetRemaining budgetRenewsAt answeredAt
  }
}`;
  const PREVIEW = `query PlaygroundPreview(${ARGUMENTS}) {
  candidateStatisticsPreview(${PASSED}) {
    epsilon epsilonCharged sensitivity confidence totalHalfWidth cellHalfWidth minimumCellSize combinations
    budget budgetRemaining budgetRenewsAt refused
  }
}`;
  const BUDGET = `query PlaygroundBudget {
  statisticsBudget { budget spent remaining renewsAt queries { time question { ${QUESTION_FIELDS} } } }
}`;

  /**
   * The question's filter as the query parameters of GET /v1/statistics, in their order there
   * (src/rest/statistics-csv.ts): [parameter, items], `encode` applied to each part a client
   * could have typed; the fields that do not filter left out.
   */
  function filterParameters(question, encode) {
    const list = (items) => (items && items.length > 0 ? items : null);
    const number = (value) => (value === null || value === undefined ? null : [String(value)]);
    const entries = [
      ['location', list(question.locations?.map(encode))],
      ['nationality', list(question.nationalities?.map(encode))],
      ['occupation', list(question.occupations?.map(encode))],
      [
        'languages',
        list(
          question.languages?.map((requirement) =>
            [encode(requirement.language), requirement.minSpokenLevel ?? '', requirement.minWrittenLevel ?? '']
              .join(':')
              .replace(/:+$/, ''),
          ),
        ),
      ],
      ['minYearsExperience', number(question.minYearsExperience)],
      ['maxYearsExperience', number(question.maxYearsExperience)],
      ['minEducationLevel', number(question.minEducationLevel)],
      ['maxEducationLevel', number(question.maxEducationLevel)],
      ['minAge', number(question.minAge)],
      ['maxAge', number(question.maxAge)],
      [
        'exams',
        list(
          question.exams?.map((requirement) =>
            requirement.minScore === null || requirement.minScore === undefined
              ? requirement.exam
              : `${requirement.exam}:${requirement.minScore}`,
          ),
        ),
      ],
      ['keyword', question.keyword === null || question.keyword === undefined ? null : [encode(question.keyword)]],
      ['inSavedLists', list(question.inSavedLists?.map(encode))],
      ['notInSavedLists', list(question.notInSavedLists?.map(encode))],
    ];
    return entries.filter(([, items]) => items !== null);
  }

  const numbers = new Intl.NumberFormat('en');

  /** An element with attributes and children (strings become text). */
  function el(tag, attributes, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value !== null && value !== undefined && value !== false)
        element.setAttribute(name, value === true ? '' : value);
    }
    element.append(...children.filter((child) => child !== null && child !== undefined));
    return element;
  }

  /** Element.replaceChildren, leaving out the children that are null. */
  function replaceChildren(parent, ...children) {
    parent.replaceChildren(...children.filter((child) => child !== null && child !== undefined));
  }

  function svg(tag, attributes, ...children) {
    const element = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes || {})) element.setAttribute(name, String(value));
    element.append(...children);
    return element;
  }

  /** `EDUCATION_LEVEL` → `Education level`. */
  function readable(name) {
    const words = name.toLowerCase().replace(/_/g, ' ');
    return words.charAt(0).toUpperCase() + words.slice(1);
  }

  /** `2030-05-07T00:00:00.000Z` → `2030-05-07 00:00 UTC`. */
  function when(iso) {
    return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  }

  function range(interval) {
    return `${numbers.format(interval.low)}–${numbers.format(interval.high)}`;
  }

  // ---- the form ----

  function dimensionSelect(id, none) {
    return el(
      'select',
      { id, name: id },
      el('option', { value: '' }, none),
      ...page.options.dimensions.map((dimension) => el('option', { value: dimension }, readable(dimension))),
    );
  }

  function codesField(id, label, hint, placeholder) {
    return el(
      'div',
      { class: 'st-field' },
      el('label', { for: id }, label),
      el('input', {
        id,
        name: id,
        type: 'text',
        spellcheck: 'false',
        autocomplete: 'off',
        placeholder,
        'aria-describedby': `${id}-hint`,
      }),
      el('small', { id: `${id}-hint` }, hint),
    );
  }

  const form = el(
    'form',
    { class: 'st-form', id: 'st-form', 'aria-label': 'Statistics question', novalidate: true },
    el('h2', {}, 'Question'),
    el(
      'fieldset',
      {},
      el('legend', {}, 'Which candidates'),
      codesField('st-location', 'Location', 'ISO country codes, comma-separated; empty: all', 'LB, JO'),
      codesField('st-nationality', 'Nationality', 'ISO country codes; empty: all', 'SY'),
      codesField('st-occupation', 'Occupation', 'ISCO-08 codes (4 digits); empty: all', '2221'),
      el(
        'div',
        { class: 'st-check' },
        el('input', { id: 'st-employed', name: 'st-employed', type: 'checkbox' }),
        el('label', { for: 'st-employed' }, 'Count EMPLOYED candidates too'),
      ),
    ),
    el(
      'fieldset',
      {},
      el('legend', {}, 'Count by'),
      el(
        'div',
        { class: 'st-pair' },
        el(
          'div',
          { class: 'st-field' },
          el('label', { for: 'st-dimension-1' }, 'First'),
          dimensionSelect('st-dimension-1', 'None: the total'),
        ),
        el(
          'div',
          { class: 'st-field' },
          el('label', { for: 'st-dimension-2' }, 'Then'),
          dimensionSelect('st-dimension-2', 'None'),
        ),
      ),
    ),
    el(
      'div',
      { class: 'st-field' },
      el('label', { for: 'st-epsilon' }, 'ε, the privacy cost'),
      el('input', {
        id: 'st-epsilon',
        name: 'st-epsilon',
        type: 'number',
        min: '0.001',
        max: '10',
        step: '0.001',
        value: '1',
        'aria-describedby': 'st-epsilon-hint',
      }),
      el('small', { id: 'st-epsilon-hint' }, '0.001 to 10: more ε, less noise, more budget spent'),
    ),
    el(
      'div',
      { class: 'st-actions' },
      el('button', { type: 'submit', id: 'st-preview-button' }, 'Preview (free)'),
      el('button', { type: 'button', id: 'st-run', disabled: true, 'aria-describedby': 'st-run-hint' }, 'Run'),
    ),
    el('small', { id: 'st-run-hint' }, 'Preview first; Run spends what the preview says.'),
    el('p', { id: 'st-message', class: 'st-message', role: 'status', 'aria-live': 'polite' }),
  );

  const budgetBox = el('section', { class: 'st-box', id: 'st-budget', 'aria-label': 'Privacy budget' });
  const previewBox = el('section', { class: 'st-box', id: 'st-preview', 'aria-label': 'Preview', hidden: true });
  const resultBox = el('section', { class: 'st-box st-result', id: 'st-result', 'aria-label': 'Answer', hidden: true });
  root.append(
    el('div', { class: 'st-layout' }, form, el('div', { class: 'st-output' }, budgetBox, previewBox, resultBox)),
  );

  const field = (id) => document.getElementById(id);
  const runButton = field('st-run');
  const message = field('st-message');

  /** The form as the variables of the three queries. */
  function variables() {
    const filter = {};
    for (const [parameter, id] of [
      ['location', 'st-location'],
      ['nationality', 'st-nationality'],
      ['occupation', 'st-occupation'],
    ]) {
      const codes = field(id)
        .value.split(',')
        .map((code) => code.trim())
        .filter((code) => code !== '');
      if (codes.length > 0) filter[parameter] = codes;
    }
    return {
      filter: Object.keys(filter).length > 0 ? filter : null,
      includeEmployed: field('st-employed').checked,
      groupBy: [field('st-dimension-1').value, field('st-dimension-2').value].filter((name) => name !== ''),
      epsilon: Number(field('st-epsilon').value),
    };
  }

  /** The variables the current preview is of: Run asks exactly that question. */
  let previewed = null;

  function say(text, isError) {
    message.textContent = text;
    message.classList.toggle('st-error', Boolean(isError));
  }

  /** The first error of a result, said; true when there was one. */
  function failed(result) {
    if (!result.errors || result.errors.length === 0) return false;
    const error = result.errors[0];
    const code = error.extensions && error.extensions.code;
    if (code === 'NO_KEY') page.focusKey();
    say(
      code === 'FORBIDDEN'
        ? 'This API key may not run statistics: it lacks the READ_STATISTICS permission.'
        : error.message,
      true,
    );
    return true;
  }

  // Any change makes the preview stale: Run waits for a new one.
  form.addEventListener('input', () => {
    if (previewed === null) return;
    previewed = null;
    runButton.disabled = true;
    previewBox.classList.add('st-stale');
    say('The question changed: preview it again before running it.');
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const asked = variables();
    say('Previewing…');
    const result = await page.request(PREVIEW, asked);
    if (failed(result)) return;
    showPreview(result.data.candidateStatisticsPreview);
    previewed = asked;
    runButton.disabled = result.data.candidateStatisticsPreview.refused;
    say(
      result.data.candidateStatisticsPreview.refused
        ? 'This question would be refused now.'
        : 'Previewed: nothing was spent.',
    );
  });

  runButton.addEventListener('click', async () => {
    if (previewed === null) return;
    runButton.disabled = true;
    say('Counting…');
    const result = await page.request(STATISTICS, previewed);
    previewed = null;
    if (failed(result)) {
      await loadBudget();
      return;
    }
    const answer = result.data.candidateStatistics;
    // What the preview said held before the run: its budget figures are now the answer's.
    previewBox.classList.add('st-stale');
    showAnswer(answer);
    say(
      answer.epsilonCharged > 0
        ? `Answered: ε = ${answer.epsilonCharged} spent.`
        : 'Answered from the stored answer: nothing spent.',
    );
    await loadBudget();
  });

  // ---- the budget ----

  function describe(question) {
    const by = question.groupBy.length === 0 ? 'the total' : question.groupBy.map(readable).join(' × ');
    const filters = filterParameters(question, (part) => part).map(
      ([parameter, items]) => `${parameter} ${items.join(', ')}`,
    );
    if (question.includeEmployed) filters.push('EMPLOYED included');
    return `${by}${filters.length > 0 ? ` (${filters.join('; ')})` : ''}, ε = ${question.epsilon}`;
  }

  async function loadBudget() {
    const result = await page.request(BUDGET, {});
    if (result.errors) {
      budgetBox.replaceChildren(
        el('h2', {}, 'Privacy budget'),
        el('p', { class: 'st-error' }, failed(result) ? message.textContent : ''),
      );
      return;
    }
    const budget = result.data.statisticsBudget;
    const queries = budget.queries.map((query) => el('li', {}, `${when(query.time)}: ${describe(query.question)}`));
    budgetBox.replaceChildren(
      el('h2', {}, 'Privacy budget'),
      el(
        'p',
        { id: 'st-budget-left' },
        `ε ${budget.remaining} of ${budget.budget} left in this period; the budget renews ${when(budget.renewsAt)}.`,
      ),
      queries.length === 0
        ? el('p', {}, 'No query has been charged in this period.')
        : el('details', {}, el('summary', {}, `Charged this period: ${queries.length}`), el('ol', {}, ...queries)),
    );
  }

  // ---- the preview ----

  function showPreview(preview) {
    const charge =
      preview.epsilonCharged === 0
        ? 'This question was answered in this period: running it gives the stored answer again, free.'
        : `Running it spends ε = ${preview.epsilonCharged} of the ${preview.budgetRemaining} left (the budget renews ${when(preview.budgetRenewsAt)}).`;
    previewBox.classList.remove('st-stale');
    replaceChildren(
      previewBox,
      el('h2', {}, 'Preview'),
      el('p', {}, charge),
      preview.refused
        ? el(
            'p',
            { class: 'st-error' },
            `It would be refused: the key has ε = ${preview.budgetRemaining} left until ${when(preview.budgetRenewsAt)}. Lower ε, or wait.`,
          )
        : null,
      el(
        'ul',
        {},
        el(
          'li',
          {},
          `Each count within ±${numbers.format(preview.cellHalfWidth)} of the truth, 95 % of the time (the total within ±${numbers.format(preview.totalHalfWidth)}).`,
        ),
        preview.combinations > 1
          ? el(
              'li',
              {},
              `Cells are listed from a noisy count of ${numbers.format(preview.minimumCellSize)}, out of ${numbers.format(preview.combinations)} combinations.`,
            )
          : null,
        el('li', {}, `Δ = ${preview.sensitivity}: what one person can change in the answer; the noise has scale Δ/ε.`),
      ),
    );
    previewBox.hidden = false;
  }

  // ---- the answer ----

  /** The answer as CSV: the format of GET /v1/statistics with Accept: text/csv (src/rest/statistics-csv.ts). */
  function csvOf(answer) {
    const question = answer.question;
    const parameters = [`groupBy=${question.groupBy.join(',')}`, `epsilon=${question.epsilon}`];
    for (const [parameter, items] of filterParameters(question, encodeURIComponent))
      parameters.push(`${parameter}=${items.join(',')}`);
    if (question.includeEmployed) parameters.push('includeEmployed=true');
    const meaning = [
      String(answer.epsilon),
      String(answer.sensitivity),
      String(answer.confidence),
      `/v1/statistics?${parameters.join('&')}`,
      answer.answeredAt,
    ];
    const groupBy = question.groupBy;
    const none = groupBy.map(() => '');
    const rows = [
      [
        ...groupBy,
        ...groupBy.map((dimension) => `${dimension}_label`),
        'count',
        'low',
        'high',
        'epsilon',
        'sensitivity',
        'confidence',
        'query',
        'answeredAt',
      ],
      [
        ...none,
        ...none,
        String(answer.total),
        String(answer.totalInterval.low),
        String(answer.totalInterval.high),
        ...meaning,
      ],
    ];
    if (groupBy.length > 0) {
      for (const cell of answer.cells) {
        rows.push([
          ...cell.values.map((value) => value.code),
          ...cell.values.map((value) => value.label),
          String(cell.count),
          String(cell.interval.low),
          String(cell.interval.high),
          ...meaning,
        ]);
      }
    }
    const quoted = (value) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
    return rows.map((row) => row.map(quoted).join(',') + '\r\n').join('');
  }

  function download(answer) {
    const url = URL.createObjectURL(new Blob([csvOf(answer)], { type: 'text/csv;charset=utf-8' }));
    const link = el('a', {
      href: url,
      download: `candidate-statistics-${answer.answeredAt.replace(/[:.]/g, '-')}.csv`,
    });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }

  /** Horizontal bars by one dimension, each with its interval drawn over it. */
  function barChart(answer) {
    const cells = answer.cells;
    const width = 900;
    const labelWidth = 230;
    const valueWidth = 170;
    const row = 26;
    const top = 8;
    const largest = Math.max(1, ...cells.map((cell) => cell.interval.high));
    const scale = (width - labelWidth - valueWidth) / largest;
    const dimension = readable(answer.question.groupBy[0]);
    const chart = svg('svg', {
      class: 'st-chart',
      viewBox: `0 0 ${width} ${top * 2 + row * cells.length}`,
      role: 'img',
      'aria-label': `${dimension}: ${cells.length} listed counts as bars, each with its 95 % interval as a line; the table below lists the numbers.`,
    });
    cells.forEach((cell, i) => {
      const y = top + i * row;
      const middle = y + row / 2;
      const { label, code } = cell.values[0];
      const shown = label.length > 30 ? `${label.slice(0, 29)}…` : label;
      const line = (x1, x2, y1, y2) => svg('line', { x1, x2, y1, y2 });
      chart.append(
        svg(
          'g',
          { class: 'st-row', 'data-codes': code },
          svg(
            'title',
            {},
            document.createTextNode(`${label}: ${numbers.format(cell.count)} (95 % interval ${range(cell.interval)})`),
          ),
          svg(
            'text',
            { class: 'st-label', x: labelWidth - 8, y: middle + 4, 'text-anchor': 'end' },
            document.createTextNode(shown),
          ),
          svg('rect', {
            class: 'st-bar',
            x: labelWidth,
            y: middle - 7,
            width: Math.max(1, cell.count * scale),
            height: 14,
            'data-count': cell.count,
          }),
          svg(
            'g',
            { class: 'st-interval', 'data-low': cell.interval.low, 'data-high': cell.interval.high },
            line(labelWidth + cell.interval.low * scale, labelWidth + cell.interval.high * scale, middle, middle),
            line(
              labelWidth + cell.interval.low * scale,
              labelWidth + cell.interval.low * scale,
              middle - 6,
              middle + 6,
            ),
            line(
              labelWidth + cell.interval.high * scale,
              labelWidth + cell.interval.high * scale,
              middle - 6,
              middle + 6,
            ),
          ),
          svg(
            'text',
            { class: 'st-value', x: labelWidth + cell.interval.high * scale + 8, y: middle + 4 },
            document.createTextNode(`${numbers.format(cell.count)}  (${range(cell.interval)})`),
          ),
        ),
      );
    });
    const table = el(
      'table',
      { class: 'st-numbers' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col' }, dimension),
          el('th', { scope: 'col' }, 'Code'),
          el('th', { scope: 'col' }, 'Count'),
          el('th', { scope: 'col' }, '95 % interval'),
        ),
      ),
      el(
        'tbody',
        {},
        ...cells.map((cell) =>
          el(
            'tr',
            {},
            el('th', { scope: 'row' }, cell.values[0].label),
            el('td', {}, cell.values[0].code),
            el('td', {}, numbers.format(cell.count)),
            el('td', {}, range(cell.interval)),
          ),
        ),
      ),
    );
    return [
      el('div', { class: 'st-scroll' }, chart),
      el('details', {}, el('summary', {}, 'The numbers as a table'), table),
    ];
  }

  /** A table by two dimensions: a row per value of the first, a column per value of the second, each listed cell shaded by its count. */
  function cellTable(answer) {
    const [first, second] = answer.question.groupBy;
    const rows = new Map();
    const columns = new Map();
    const byCodes = new Map();
    for (const cell of answer.cells) {
      rows.set(cell.values[0].code, cell.values[0].label);
      columns.set(cell.values[1].code, cell.values[1].label);
      byCodes.set(`${cell.values[0].code}\u0000${cell.values[1].code}`, cell);
    }
    const largest = Math.max(1, ...answer.cells.map((cell) => cell.interval.high));
    const mark = (cell) =>
      svg(
        'svg',
        {
          class: 'st-interval',
          viewBox: '0 0 64 10',
          'data-low': cell.interval.low,
          'data-high': cell.interval.high,
          'aria-hidden': 'true',
        },
        svg('line', {
          class: 'st-range-line',
          x1: 2 + (cell.interval.low / largest) * 60,
          x2: 2 + (cell.interval.high / largest) * 60,
          y1: 5,
          y2: 5,
        }),
        svg('circle', { cx: 2 + (cell.count / largest) * 60, cy: 5, r: 2.5 }),
      );
    const body = [...rows].map(([rowCode, rowLabel]) =>
      el(
        'tr',
        {},
        el('th', { scope: 'row', title: rowCode }, rowLabel),
        ...[...columns.keys()].map((columnCode) => {
          const cell = byCodes.get(`${rowCode}\u0000${columnCode}`);
          if (cell === undefined)
            return el(
              'td',
              { class: 'st-empty', title: `Not listed: its noisy count was below ${answer.minimumCellSize}` },
              '·',
            );
          const shade = 0.12 + 0.78 * (cell.count / largest);
          const td = el(
            'td',
            {
              class: `st-cell${shade > 0.55 ? ' st-dark' : ''}`,
              'data-codes': `${rowCode}|${columnCode}`,
              'data-count': String(cell.count),
              title: `${rowLabel} × ${columns.get(columnCode)}: ${numbers.format(cell.count)} (95 % interval ${range(cell.interval)})`,
            },
            el('span', { class: 'st-count' }, numbers.format(cell.count)),
            mark(cell),
            el('span', { class: 'st-range' }, range(cell.interval)),
          );
          td.style.backgroundColor = `hsla(212, 80%, 42%, ${shade.toFixed(3)})`;
          return td;
        }),
      ),
    );
    return [
      el(
        'p',
        { id: 'st-cells-note', class: 'st-meta' },
        `${readable(first)} (rows) by ${readable(second)} (columns): each listed count, shaded by its size, with its 95 % interval drawn and written below it.`,
      ),
      el(
        'div',
        { class: 'st-scroll' },
        el(
          'table',
          { class: 'st-cells', 'aria-describedby': 'st-cells-note' },
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              el('td', {}),
              ...[...columns].map(([code, label]) => el('th', { scope: 'col', title: code }, label)),
            ),
          ),
          el('tbody', {}, ...body),
        ),
      ),
    ];
  }

  function showAnswer(answer) {
    const combinations = answer.question.groupBy.length;
    const drawing =
      combinations === 0
        ? []
        : answer.cells.length === 0
          ? [el('p', {}, 'No combination reached the listing threshold.')]
          : combinations === 1
            ? barChart(answer)
            : cellTable(answer);
    const downloadButton = el('button', { type: 'button', id: 'st-download' }, 'Download CSV');
    downloadButton.addEventListener('click', () => download(answer));
    replaceChildren(
      resultBox,
      el('h2', {}, 'Answer'),
      el('p', { class: 'st-question' }, describe(answer.question)),
      el(
        'p',
        { class: 'st-total' },
        'Total: ',
        el('strong', { id: 'st-total' }, numbers.format(answer.total)),
        ` (95 % interval ${range(answer.totalInterval)})`,
      ),
      el(
        'p',
        { class: 'st-meta' },
        `ε = ${answer.epsilon} (spent now: ${answer.epsilonCharged}) · Δ = ${answer.sensitivity}` +
          (combinations > 0
            ? ` · ${answer.cells.length} ${answer.cells.length === 1 ? 'cell' : 'cells'} listed; a combination not listed had a noisy count below ${answer.minimumCellSize}`
            : '') +
          ` · answered ${when(answer.answeredAt)}`,
      ),
      ...drawing,
      el(
        'div',
        { class: 'st-actions' },
        downloadButton,
        el('small', {}, 'The numbers above, their intervals, ε, Δ, the question and the time.'),
      ),
    );
    resultBox.hidden = false;
  }

  // The budget as soon as there is a key, and again whenever the view is shown.
  budgetBox.append(
    el('h2', {}, 'Privacy budget'),
    el('p', {}, 'Enter your API key at the top of the page to see your budget.'),
  );
  page.onKey(() => loadBudget());
  page.onView((name) => {
    if (name === 'statistics' && page.hasKey()) loadBudget();
  });
})();
