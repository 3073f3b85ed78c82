/**
 * What Cloudflare Containers cost this deploy: the published rates and
 * instance sizes as data, with their source and date, and the two figures
 * docs/costs.md and the health report state: the warm pool's fixed monthly
 * cost and the most one run's container can add. Pure; the prices change, so
 * a figure names the date of the rates it used. Model spend is
 * src/shared/pricing.ts.
 */
/** Cloudflare's container instance types, smallest first. */
export const INSTANCE_TYPES = ["lite", "basic", "standard-1", "standard-2", "standard-3", "standard-4"] as const;
export type InstanceType = (typeof INSTANCE_TYPES)[number];

export type ContainerPrices = {
  /** When the rates were read, and where. */
  asOf: string;
  source: readonly string[];
  /** US dollars per vCPU-second of active CPU (billed on use, not on the instance's size, since 2025-11-21). */
  usdPerVcpuSecond: number;
  /** US dollars per GiB-second of provisioned memory while the container runs. */
  usdPerGibSecond: number;
  /** US dollars per GB-second of provisioned disk while the container runs. */
  usdPerDiskGbSecond: number;
  /** What Workers Paid includes each month, across every container of the account. */
  included: { vcpuSeconds: number; gibSeconds: number; diskGbSeconds: number };
};

export const CONTAINER_PRICES: ContainerPrices = {
  asOf: "2026-12-01",
  source: [
    "https://developers.cloudflare.com/containers/pricing/",
    "https://developers.cloudflare.com/containers/platform/limits/"
  ],
  usdPerVcpuSecond: 0.00002,
  usdPerGibSecond: 0.0000025,
  usdPerDiskGbSecond: 0.00000007,
  // 375 vCPU-minutes, 25 GiB-hours of memory, 200 GB-hours of disk.
  included: { vcpuSeconds: 375 * 60, gibSeconds: 25 * 3600, diskGbSeconds: 200 * 3600 }
};

export type InstanceSize = { vcpu: number; memoryGib: number; diskGb: number };

/** The predefined instance types (the limits page above). */
export const INSTANCE_SIZES: Record<InstanceType, InstanceSize> = {
  lite: { vcpu: 1 / 16, memoryGib: 0.25, diskGb: 2 },
  basic: { vcpu: 1 / 4, memoryGib: 1, diskGb: 4 },
  "standard-1": { vcpu: 1 / 2, memoryGib: 4, diskGb: 8 },
  "standard-2": { vcpu: 1, memoryGib: 6, diskGb: 12 },
  "standard-3": { vcpu: 2, memoryGib: 8, diskGb: 16 },
  "standard-4": { vcpu: 4, memoryGib: 12, diskGb: 20 }
};

/** An average month: 365 days × 24 hours / 12. */
export const HOURS_PER_MONTH = 730;

export type ContainerCost = {
  /** Each part in US dollars, before what the plan includes. */
  cpuUsd: number;
  memoryUsd: number;
  diskUsd: number;
  /** The sum, less the plan's included amounts when asked (never below zero). */
  totalUsd: number;
};

export type ContainerUsage = {
  instance: InstanceType;
  /** How many containers run side by side. */
  containers: number;
  /** For how long each runs, in seconds. */
  seconds: number;
  /** The share of the instance's vCPU in use, 0 to 1: an idle container uses next to none. */
  cpuBusy: number;
  /** Subtract what Workers Paid includes (true only for a figure that has the account's month to itself). */
  lessIncluded: boolean;
};

/** What `usage` costs at `prices`. Throws on a negative or non-finite amount, or a CPU share outside 0..1. */
export function containerCost(usage: ContainerUsage, prices: ContainerPrices = CONTAINER_PRICES): ContainerCost {
  const size = INSTANCE_SIZES[usage.instance];
  if (!size) throw new Error(`no size for the instance type ${JSON.stringify(usage.instance)}`);
  for (const [name, value] of [["containers", usage.containers], ["seconds", usage.seconds]] as const) {
    if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number, 0 or more`);
  }
  if (!Number.isFinite(usage.cpuBusy) || usage.cpuBusy < 0 || usage.cpuBusy > 1) throw new Error("cpuBusy must be between 0 and 1");
  const time = usage.containers * usage.seconds;
  const vcpuSeconds = size.vcpu * usage.cpuBusy * time;
  const gibSeconds = size.memoryGib * time;
  const diskGbSeconds = size.diskGb * time;
  const billed = (amount: number, included: number) => (usage.lessIncluded ? Math.max(0, amount - included) : amount);
  const cpuUsd = vcpuSeconds * prices.usdPerVcpuSecond;
  const memoryUsd = gibSeconds * prices.usdPerGibSecond;
  const diskUsd = diskGbSeconds * prices.usdPerDiskGbSecond;
  const totalUsd =
    billed(vcpuSeconds, prices.included.vcpuSeconds) * prices.usdPerVcpuSecond +
    billed(gibSeconds, prices.included.gibSeconds) * prices.usdPerGibSecond +
    billed(diskGbSeconds, prices.included.diskGbSeconds) * prices.usdPerDiskGbSecond;
  return { cpuUsd, memoryUsd, diskUsd, totalUsd };
}

/**
 * The warm pool's fixed cost for a month: `size` idle containers running
 * around the clock, less what Workers Paid includes (the runs' containers
 * share that allowance, so this is the pool's cost when nothing else runs).
 */
export function warmPoolMonthlyCost(instance: InstanceType, size: number, prices: ContainerPrices = CONTAINER_PRICES): ContainerCost {
  return containerCost({ instance, containers: size, seconds: HOURS_PER_MONTH * 3600, cpuBusy: 0, lessIncluded: true }, prices);
}

/** The most one run's container can cost: its whole lifetime with the vCPU busy, nothing included. */
export function runContainerCeiling(instance: InstanceType, lifetimeMs: number, prices: ContainerPrices = CONTAINER_PRICES): ContainerCost {
  return containerCost({ instance, containers: 1, seconds: lifetimeMs / 1000, cpuBusy: 1, lessIncluded: false }, prices);
}

/** `$41.35`: dollars and cents. */
export const formatUsd = (usd: number) => `$${usd.toFixed(2)}`;
