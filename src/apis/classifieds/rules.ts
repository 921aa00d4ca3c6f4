/*
 * The business and technical rules the worker applies to a classified (the format was checked
 * when the write was received). A rule answers, for one classified, the violations it finds;
 * portal rules apply only to the portals they name, so a classified can be accepted on one
 * portal and rejected on another.
 */
import type { Classified, MultiLingualText } from './model/classified.js';
import type { Portal } from './model/statuses.js';

export interface Violation {
  rule: string;
  field: string;
  reason: string;
}

interface Rule {
  name: string;
  /** Portals the rule applies to; absent: every portal (a technical rule). */
  portals?: readonly Portal[];
  check(classified: Classified): Omit<Violation, 'rule'>[];
}

/** data.estateSubType names its sub-type under the key of the estate type, e.g. trading for TRADING. */
function subTypeKey(estateType: string): string {
  return estateType.toLowerCase().replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function longestText(text: MultiLingualText | undefined): number {
  return Math.max(0, ...Object.values(text ?? {}).map((value) => value.length));
}

const RULES: readonly Rule[] = [
  {
    name: 'ESTATE_SUB_TYPE_MATCHES_ESTATE_TYPE',
    check(classified) {
      const expected = subTypeKey(classified.data.estateType);
      return Object.keys(classified.data.estateSubType ?? {})
        .filter((key) => key !== expected)
        .map((key) => ({
          field: `data.estateSubType.${key}`,
          reason: `does not belong to estateType ${classified.data.estateType} (use data.estateSubType.${expected})`,
        }));
    },
  },
  {
    name: 'BUCOM_TRADING_ONLY',
    portals: ['BUCOM'],
    check: (classified) =>
      classified.data.estateType === 'TRADING'
        ? []
        : [{ field: 'data.estateType', reason: `must be TRADING to publish on BUCOM, got ${classified.data.estateType}` }],
  },
  {
    name: 'BUCOM_LEASE_RIGHT_REQUIRED',
    portals: ['BUCOM'],
    check: (classified) =>
      classified.data.prices.rent?.countrySpecific?.fr?.leaseRight === undefined
        ? [{ field: 'data.prices.rent.countrySpecific.fr.leaseRight', reason: 'is required to publish on BUCOM' }]
        : [],
  },
  {
    name: 'BD_PICTURE_REQUIRED',
    portals: ['BD'],
    check: (classified) =>
      (classified.media ?? []).some((media) => media.mediaType === 'PICTURE')
        ? []
        : [{ field: 'media', reason: 'must contain at least one PICTURE to publish on BD' }],
  },
  {
    name: 'BD_MINIMUM_SURFACE',
    portals: ['BD'],
    check(classified) {
      const surface = classified.data.spaces?.overallSpace;
      return surface !== undefined && surface < 20
        ? [{ field: 'data.spaces.overallSpace', reason: `must be at least 20 m2 to publish on BD, got ${surface}` }]
        : [];
    },
  },
  {
    name: 'BD_DESCRIPTION_LENGTH',
    portals: ['BD'],
    check(classified) {
      const length = longestText(classified.data.texts?.description);
      return length >= 160
        ? []
        : [
            {
              field: 'data.texts.description',
              reason: `must have at least 160 characters in one language to publish on BD, got ${length}`,
            },
          ];
    },
  },
  {
    name: 'SL_RESALE_PRICE_REQUIRED',
    portals: ['SL'],
    check(classified) {
      if (classified.data.distributionType !== 'BUY') return [];
      const amount = classified.data.prices.buy?.price?.amount ?? 0;
      return amount > 0 ? [] : [{ field: 'data.prices.buy.price.amount', reason: 'must be greater than 0 for a resale on SL' }];
    },
  },
  {
    name: 'SL_RENTAL_PRICE_REQUIRED',
    portals: ['SL'],
    check(classified) {
      if (classified.data.distributionType !== 'RENT') return [];
      const rent = classified.data.prices.rent;
      const amount = Math.max(rent?.baseRent?.amount ?? 0, rent?.totalRent?.amount ?? 0);
      return amount > 0
        ? []
        : [
            {
              field: 'data.prices.rent.baseRent.amount',
              reason: 'or data.prices.rent.totalRent.amount must be greater than 0 for a rental on SL',
            },
          ];
    },
  },
];

export interface RuleOutcome {
  /** Portals the classified may be published on. */
  accepted: string[];
  /** Portals refused, each with what it violates. */
  rejected: { portal: string; violations: Violation[] }[];
  /** Violations of technical rules, which refuse the classified on every portal. */
  technical: Violation[];
}

export function applyRules(classified: Classified): RuleOutcome {
  const violationsOf = (rule: Rule) => rule.check(classified).map((violation) => ({ rule: rule.name, ...violation }));
  const technical = RULES.filter((rule) => rule.portals === undefined).flatMap(violationsOf);
  const accepted: string[] = [];
  const rejected: RuleOutcome['rejected'] = [];
  for (const portal of classified.portals) {
    const violations = [...technical, ...RULES.filter((rule) => rule.portals?.includes(portal)).flatMap(violationsOf)];
    if (violations.length === 0) accepted.push(portal);
    else rejected.push({ portal, violations });
  }
  return { accepted, rejected, technical };
}

/** subStatusDetails: every violated rule, named, with its field and reason. */
export function describeViolations(violations: Violation[]): string {
  return violations.map((violation) => `${violation.rule}: ${violation.field} ${violation.reason}`).join('; ');
}
