/**
 * Discovery: the `discover` section of the deployment file (which regions and accounts to search
 * for EKS clusters, and which tags make a cluster watched), and the tags a discovered cluster
 * carries its own settings in, validated by the same schema as a listed cluster's.
 *
 * Tag rules (EKS "Tagging your Amazon EKS resources"): keys of 1-128 and values of 0-256
 * characters, letters, digits, spaces and `+ - = . _ : / @`; keys starting `aws:` are AWS's own.
 */
import * as z from 'zod';
import { clusterSchema } from './clusters.js';
import { DEFAULTS } from './defaults.js';
import { shown } from './errors.js';
import { awsRegion, flag, roleArn, strictObject, wholeNumber } from './fields.js';
import { setting } from './registry.js';

export { KUBERNETES_GROUP } from './access-policy.js';

/** What a tag key or value may hold (EKS tag restrictions). */
const TAG_KEY = /^(?!aws:)[\p{L}\p{N}\s+\-=._:/@]{1,128}$/u;
const TAG_VALUE = /^[\p{L}\p{N}\s+\-=._:/@]{0,256}$/u;

/** `{"<tag key>": "<value>"}`: a tag filter. */
function tagFilter(example: string) {
  const problem = (tags: Record<string, string>): string | undefined => {
    for (const [key, value] of Object.entries(tags)) {
      if (!TAG_KEY.test(key)) {
        return `has the tag key ${shown(key)}: a tag key is 1-128 letters, digits, spaces or + - = . _ : / @, not starting with aws:`;
      }
      if (!TAG_VALUE.test(value)) {
        return `has the value ${shown(value)} for tag ${shown(key)}: a tag value is 0-256 letters, digits, spaces or + - = . _ : / @`;
      }
    }
    return undefined;
  };
  return z
    .record(z.string(), z.string(), {
      error: (issue) =>
        `must be an object of tag keys and values, e.g. ${example} (got ${shown(issue.input)})`,
    })
    .superRefine((tags, ctx) => {
      const found = problem(tags);
      if (found !== undefined) ctx.addIssue({ code: 'custom', message: found, input: tags });
    });
}

const accountRole = roleArn(
  "the IAM role in the account's that the function assumes to search it",
  'lease-watchdog-discovery',
);

/** The most regions and accounts one discovery searches (each pair is one ListClusters walk). */
export const MAX_DISCOVERY_REGIONS = 30;
export const MAX_DISCOVERY_ACCOUNTS = 100;

const listOf = <S extends z.ZodType>(item: S, max: number, example: string) => {
  const error = (issue: { input?: unknown }) =>
    `must be a list of 1 to ${max}, e.g. ${example} (got ${shown(issue.input)})`;
  return z.array(item, { error }).min(1, { error }).max(max, { error });
};

export const discover = setting({
  key: 'discover',
  meaning:
    '`{"regions":["eu-west-1"],"accounts"?:[{"roleArn":"arn:aws:iam::210987654321:role/lease-watchdog-discovery"}],"tags"?:{"lease-watchdog":"on"},"excludeTags"?:{"lease-watchdog":"off"},"grantAccess"?:false,"everyMinutes"?:5}`: also watch the `ACTIVE` EKS clusters of these regions, in the stack\'s account and in each `accounts` role\'s (assumed as `clusters[].auth.roleArn` is), that carry every tag of `tags` and none of `excludeTags`, from `everyMinutes` (1-60) plus one check period after their creation; with `grantAccess` the function creates its own EKS access entry on each, otherwise a NOTICE says the command to run. Names, tags, access and announcements: [docs/DEPLOY.md](docs/DEPLOY.md#discovered-clusters)',
  schema: strictObject(
    {
      regions: listOf(awsRegion(), MAX_DISCOVERY_REGIONS, '["eu-west-1"]'),
      accounts: listOf(
        strictObject(
          { roleArn: accountRole },
          'an account: {"roleArn": "arn:aws:iam::...:role/..."}',
        ),
        MAX_DISCOVERY_ACCOUNTS,
        '[{"roleArn": "arn:aws:iam::210987654321:role/lease-watchdog-discovery"}]',
      ).optional(),
      tags: tagFilter('{"lease-watchdog": "on"}').optional(),
      excludeTags: tagFilter('{"lease-watchdog": "off"}').optional(),
      grantAccess: flag().default(false),
      everyMinutes: wholeNumber({ min: 1, max: 60, hint: 'how often discovery runs' }).default(
        DEFAULTS.discoveryMinutes,
      ),
    },
    'discovery: {"regions": ["eu-west-1"], "tags"?: {...}, ...}',
  ),
});

export type DiscoverSettings = z.output<typeof discover>;

/** The tags a discovered cluster's own settings are read from, and the setting each sets. */
export const CLUSTER_TAGS = Object.freeze({
  'lease-watchdog/name': 'name',
  'lease-watchdog/namespace': 'namespace',
  'lease-watchdog/exclude-selector': 'excludeSelector',
  'lease-watchdog/runbook-url': 'runbookUrl',
} as const);

/** Whether a cluster's tags match the filter: every tag of `tags`, none of `excludeTags`. */
export function matchesTags(
  filter: Pick<DiscoverSettings, 'tags' | 'excludeTags'>,
  tags: Readonly<Record<string, string>>,
): boolean {
  const has = ([key, value]: [string, string]) => tags[key] === value;
  return (
    Object.entries(filter.tags ?? {}).every(has) &&
    !Object.entries(filter.excludeTags ?? {}).some(has)
  );
}

/** Where a discovered cluster is: its EKS name, region, and the role it is reached through. */
export interface FoundCluster {
  readonly clusterName: string;
  readonly region: string;
  readonly roleArn?: string | undefined;
  readonly tags: Readonly<Record<string, string>>;
}

/**
 * The settings of a discovered cluster: `eks` auth in its region (through its account's role),
 * named after it, with the settings its tags give, each validated as a listed cluster's field
 * is. A tag whose value a listed cluster could not have is left out, and said in `tagProblems`
 * (`tag lease-watchdog/runbook-url must be an https:// URL …`).
 */
export function discoveredSettings(found: FoundCluster) {
  const auth = {
    mode: 'eks' as const,
    clusterName: found.clusterName,
    region: found.region,
    ...(found.roleArn === undefined ? {} : { roleArn: found.roleArn }),
  };
  const base = { name: found.clusterName, auth };
  const tagProblems: string[] = [];
  let input: Record<string, unknown> = base;
  for (const [tag, key] of Object.entries(CLUSTER_TAGS)) {
    const value = found.tags[tag];
    if (value === undefined) continue;
    const tried = clusterSchema.safeParse({ ...input, [key]: value });
    if (tried.success) input = { ...input, [key]: value };
    else tagProblems.push(`tag ${tag} ${tried.error.issues[0]?.message ?? 'is not valid'}`);
  }
  return { settings: { ...clusterSchema.parse(input), auth }, tagProblems };
}
