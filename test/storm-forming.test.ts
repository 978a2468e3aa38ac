/**
 * A storm forming (lambda/core/storm-forming.ts), table-driven on the alert lifecycle: the FIRINGs
 * of silent nodes wait while their zone holds enough suspects (marked silent past a renew interval,
 * not confirmed) to storm, for at most one renew interval; a death alone, or too few to storm, is
 * never held; a STORM after FIRINGs names those nodes as still down, not firing again.
 */
import { describe } from 'node:test';
import type { NodeVerdict, Verdict } from '../lambda/core/model.js';
import { GROUP_WAIT_MS } from '../lambda/core/storm-forming.js';
import { expected, nv, runScenarios, SECOND, T0 } from '../testkit/alert-builders.js';

/** Zone a's four nodes: `e` expired, `s` a suspect (silent 40 s, not confirmed), `h` healthy. */
function zoneA(states: string): NodeVerdict[] {
  const verdicts: Record<string, Verdict> = { e: 'expired', s: 'healthy', h: 'healthy' };
  return [...states].map((c, i) =>
    nv(`a-${i}`, verdicts[c] as Verdict, c === 's' ? { silentForSeconds: 40 } : {}),
  );
}
/** Zone b: four healthy nodes (no cluster storm). */
const calm = [0, 1, 2, 3].map((i) => nv(`b-${i}`, 'healthy', { zone: 'eu-west-1b' }));

describe('a storm forming', () => {
  runScenarios([
    {
      name: 'deaths confirmed seconds apart → no FIRING, one STORM when the last is confirmed',
      checks: [
        { at: T0, nodes: [...zoneA('essh'), ...calm], expect: null },
        { at: T0 + 4 * SECOND, nodes: [...zoneA('eesh'), ...calm], expect: null },
        {
          at: T0 + 9 * SECOND,
          nodes: [...zoneA('eeeh'), ...calm],
          expect: expected({
            kind: 'STORM',
            severity: 'critical',
            firing: ['a-0', 'a-1', 'a-2'],
            storm: 'active zone eu-west-1a=3/4',
          }),
        },
      ],
    },
    {
      name: 'held one renew interval at most; the STORM that follows names them still down',
      checks: [
        { at: T0, nodes: [...zoneA('essh'), ...calm], expect: null },
        {
          at: T0 + GROUP_WAIT_MS,
          nodes: [...zoneA('eesh'), ...calm],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a-0', 'a-1'] }),
        },
        {
          at: T0 + GROUP_WAIT_MS + 3 * SECOND,
          nodes: [...zoneA('eeeh'), ...calm],
          expect: expected({
            kind: 'STORM',
            severity: 'critical',
            firing: ['a-2'],
            reminders: ['a-0', 'a-1'],
            storm: 'active zone eu-west-1a=3/4',
          }),
        },
      ],
    },
    {
      name: 'a suspect that renews ends the wait: the held node fires at once',
      checks: [
        { at: T0, nodes: [...zoneA('essh'), ...calm], expect: null },
        {
          at: T0 + 3 * SECOND,
          nodes: [...zoneA('eshh'), ...calm],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a-0'] }),
        },
      ],
    },
    {
      name: 'a lone death is not held',
      checks: [
        {
          at: T0,
          nodes: [...zoneA('ehhh'), ...calm],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a-0'] }),
        },
      ],
    },
    {
      name: 'one death and one suspect in a zone of four (2 of 4 would not storm) → FIRING at once',
      checks: [
        {
          at: T0,
          nodes: [...zoneA('eshh'), ...calm],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a-0'] }),
        },
      ],
    },
  ]);
});
