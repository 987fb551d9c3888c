/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for libnvidia-ml.so.1 (the entry points --gpus auto uses, as
 * NVIDIA's nvml.h declares them), so tests/cli/test_gpus_auto.py can try
 * the NVML path on a machine without a GPU. Its devices come from
 * FAKE_NVML_DEVICES: "name:total MiB:free MiB:major.minor;..." ; with
 * FAKE_NVML_FAIL_INIT set, nvmlInit_v2 fails as it does without a driver.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nvml_memory {
	unsigned long long total, free, used;
};

struct fake_dev {
	char name[96];
	unsigned long long total, free;
	int major, minor;
};

static struct fake_dev devs[16];
static unsigned n_devs;

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **h);
int nvmlDeviceGetName(void *h, char *name, unsigned len);
int nvmlDeviceGetMemoryInfo(void *h, struct nvml_memory *m);
int nvmlDeviceGetCudaComputeCapability(void *h, int *major, int *minor);

int
nvmlInit_v2(void)
{
	const char *spec = getenv("FAKE_NVML_DEVICES");
	char buf[1024], *item, *save = NULL;

	if (getenv("FAKE_NVML_FAIL_INIT"))
		return 9;	/* NVML_ERROR_DRIVER_NOT_LOADED */
	n_devs = 0;
	snprintf(buf, sizeof(buf), "%s", spec ? spec : "");
	for (item = strtok_r(buf, ";", &save); item && n_devs < 16;
	     item = strtok_r(NULL, ";", &save)) {
		struct fake_dev *d = &devs[n_devs];
		unsigned long long t, f;

		if (sscanf(item, "%95[^:]:%llu:%llu:%d.%d", d->name, &t, &f,
			   &d->major, &d->minor) != 5)
			continue;
		d->total = t << 20;
		d->free = f << 20;
		n_devs++;
	}
	return 0;
}

int
nvmlShutdown(void)
{
	return 0;
}

int
nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = n_devs;
	return 0;
}

int
nvmlDeviceGetHandleByIndex_v2(unsigned i, void **h)
{
	if (i >= n_devs)
		return 2;	/* NVML_ERROR_INVALID_ARGUMENT */
	*h = &devs[i];
	return 0;
}

int
nvmlDeviceGetName(void *h, char *name, unsigned len)
{
	snprintf(name, len, "%s", ((struct fake_dev *)h)->name);
	return 0;
}

int
nvmlDeviceGetMemoryInfo(void *h, struct nvml_memory *m)
{
	struct fake_dev *d = h;

	m->total = d->total;
	m->free = d->free;
	m->used = d->total - d->free;
	return 0;
}

int
nvmlDeviceGetCudaComputeCapability(void *h, int *major, int *minor)
{
	*major = ((struct fake_dev *)h)->major;
	*minor = ((struct fake_dev *)h)->minor;
	return 0;
}
