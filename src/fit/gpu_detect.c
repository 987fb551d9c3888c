/* SPDX-License-Identifier: MIT */
/*
 * --gpus auto (gpu_detect.h): NVML through dlopen, else nvidia-smi's CSV,
 * else AMD's sysfs files. Every source is untrusted text from the host:
 * bounded in size, time and device count, and parsed strictly, so a
 * broken driver gives a one-line reason, never a made-up device.
 */
#define _POSIX_C_SOURCE 200809L
#include "fit/gpu_detect.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define SMI_TIMEOUT_MS 10000		/* a wedged driver can hang smi */
#define SMI_MAX_OUTPUT (64u << 10)
#define SYSFS_MAX_FILE 4096

/* ---- one device -------------------------------------------------------- */

/* The profile a vendor's device name stands for: the vendor words
 * dropped, then the longest run of leading words that names a profile
 * ("NVIDIA H100 80GB HBM3" -> "H100 80GB" no, "H100" yes). */
static const struct qa_gpu_profile *
profile_of_name(const char *name)
{
	static const char *const vendor_words[] = {
		"NVIDIA", "GeForce", "AMD", "Radeon", "Tesla", "Quadro",
	};
	char buf[64], *words[12];
	size_t n = 0, i, k;
	char *p, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", name);
	for (p = strtok_r(buf, " \t", &save); p && n < 12;
	     p = strtok_r(NULL, " \t", &save)) {
		bool vendor = false;

		for (i = 0; i < sizeof(vendor_words) / sizeof(*vendor_words);
		     i++)
			if (strcmp(p, vendor_words[i]) == 0)
				vendor = true;
		if (!vendor)
			words[n++] = p;
	}
	for (k = n; k > 0; k--) {
		char joined[64];
		size_t len = 0;
		const struct qa_gpu_profile *prof;

		joined[0] = '\0';
		for (i = 0; i < k && len < sizeof(joined); i++)
			len += (size_t)snprintf(joined + len,
						sizeof(joined) - len, "%s%s",
						i ? "-" : "", words[i]);
		if (len >= sizeof(joined))
			continue;
		prof = qa_gpu_profile_find(joined);
		if (prof)
			return prof;
	}
	return NULL;
}

static int
add_device(struct qa_gpu_detected *d, const char *name, uint64_t total,
	   uint64_t free_b, int cc_major, int cc_minor, char *why,
	   size_t whylen)
{
	struct qa_gpu_device *dev;
	const struct qa_gpu_profile *prof;

	if (d->set.n >= QA_GPU_MAX) {
		snprintf(why, whylen, "%s lists more than %d devices",
			 d->source, QA_GPU_MAX);
		return -1;
	}
	if (total == 0 || free_b > total) {
		snprintf(why, whylen, "%s gives device %zu a total of %" PRIu64
			 " bytes and %" PRIu64 " free", d->source, d->set.n,
			 total, free_b);
		return -1;
	}
	dev = &d->set.dev[d->set.n];
	memset(dev, 0, sizeof(*dev));
	prof = profile_of_name(name);
	if (prof) {
		snprintf(dev->name, sizeof(dev->name), "%s", prof->id);
		dev->profile = prof;
		dev->bandwidth_gbs = prof->bandwidth_gbs;
		dev->flags = prof->flags;
		dev->cc_major = prof->cc_major;
		dev->cc_minor = prof->cc_minor;
	} else {
		snprintf(dev->name, sizeof(dev->name), "%.1fGiB",
			 (double)total / (double)(1u << 30));
		dev->cc_major = dev->cc_minor = -1;
	}
	if (cc_major >= 0) {
		dev->cc_major = cc_major;
		dev->cc_minor = cc_minor;
	}
	dev->vram_bytes = total;
	dev->usable_bytes = free_b > QA_GPU_CONTEXT_RESERVE ?
			    free_b - QA_GPU_CONTEXT_RESERVE : 0;
	snprintf(d->names[d->set.n], sizeof(d->names[0]), "%s", name);
	d->free_bytes[d->set.n] = free_b;
	d->set.n++;
	return 0;
}

/* ---- 1. NVML ----------------------------------------------------------- */

/* The few NVML entry points used, as nvml.h declares them (NVML's ABI is
 * stable across drivers; the _v2 names exist since driver 410). */
struct nvml_memory {
	unsigned long long total, free, used;
};
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_count_fn)(unsigned *);
typedef int (*nvml_handle_fn)(unsigned, void **);
typedef int (*nvml_name_fn)(void *, char *, unsigned);
typedef int (*nvml_mem_fn)(void *, struct nvml_memory *);
typedef int (*nvml_cc_fn)(void *, int *, int *);

/* Returns 1 when NVML answered with devices, 0 when it is absent or has
 * none, -1 when it answered wrongly (why says how). */
static int
from_nvml(struct qa_gpu_detected *d, char *why, size_t whylen)
{
	const char *path = getenv("QA_NVML_LIB");
	void *lib;
	nvml_init_fn init, shutdown_fn;
	nvml_count_fn count;
	nvml_handle_fn handle;
	nvml_name_fn name;
	nvml_mem_fn mem;
	nvml_cc_fn cc;
	unsigned n = 0, i;
	int rc = 0;

	if (path && strcmp(path, "off") == 0)
		return 0;
	lib = dlopen(path && *path ? path : "libnvidia-ml.so.1",
		     RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return 0;
	*(void **)&init = dlsym(lib, "nvmlInit_v2");
	*(void **)&shutdown_fn = dlsym(lib, "nvmlShutdown");
	*(void **)&count = dlsym(lib, "nvmlDeviceGetCount_v2");
	*(void **)&handle = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&name = dlsym(lib, "nvmlDeviceGetName");
	*(void **)&mem = dlsym(lib, "nvmlDeviceGetMemoryInfo");
	*(void **)&cc = dlsym(lib, "nvmlDeviceGetCudaComputeCapability");
	if (!init || !count || !handle || !name || !mem) {
		dlclose(lib);
		return 0;
	}
	if (init() != 0) {
		dlclose(lib);
		return 0;
	}
	d->source = "NVML";
	if (count(&n) != 0)
		n = 0;
	for (i = 0; i < n && rc == 0; i++) {
		void *h = NULL;
		char nm[96] = "";
		struct nvml_memory m = { 0, 0, 0 };
		int ma = -1, mi = -1;

		if (handle(i, &h) != 0 || mem(h, &m) != 0) {
			snprintf(why, whylen, "NVML could not read device %u",
				 i);
			rc = -1;
			break;
		}
		if (name(h, nm, sizeof(nm)) != 0)
			snprintf(nm, sizeof(nm), "GPU %u", i);
		nm[sizeof(nm) - 1] = '\0';
		if (cc && cc(h, &ma, &mi) != 0)
			ma = mi = -1;
		if (add_device(d, nm, m.total, m.free, ma, mi, why,
			       whylen) != 0)
			rc = -1;
	}
	if (shutdown_fn)
		shutdown_fn();
	dlclose(lib);
	if (rc < 0)
		return -1;
	return d->set.n > 0 ? 1 : 0;
}

/* ---- 2. nvidia-smi ----------------------------------------------------- */

static bool
parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	while (*s == ' ')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	while (*end == ' ')
		end++;
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

static bool
parse_cc(const char *s, int *ma, int *mi)
{
	unsigned a, b;
	char tail;

	while (*s == ' ')
		s++;
	if (sscanf(s, "%u.%u%c", &a, &b, &tail) == 2 && a < 100 && b < 100) {
		*ma = (int)a;
		*mi = (int)b;
		return true;
	}
	return false;
}

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int
qa_gpu_parse_smi(const char *text, size_t len, struct qa_gpu_detected *d,
		 char *why, size_t whylen)
{
	char line[512];
	size_t at = 0, lineno = 0;

	if (!d->source)
		d->source = "nvidia-smi";
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t ll = nl ? (size_t)(nl - (text + at)) : len - at;
		char *field[8], *p, *name;
		size_t nf = 0, k;
		uint64_t idx, total, free_mib;
		int ma = -1, mi = -1;

		lineno++;
		if (ll >= sizeof(line)) {
			snprintf(why, whylen, "nvidia-smi line %zu is longer "
				 "than %zu bytes", lineno, sizeof(line) - 1);
			return -1;
		}
		memcpy(line, text + at, ll);
		line[ll] = '\0';
		at += ll + (nl ? 1 : 0);
		if (!*trim(line))
			continue;
		field[nf++] = line;
		for (p = line; *p && nf < 8; p++)
			if (*p == ',') {
				*p = '\0';
				field[nf++] = p + 1;
			}
		/* index, name, total, free [, compute_cap] */
		if (nf != 4 && nf != 5) {
			snprintf(why, whylen, "nvidia-smi line %zu has %zu "
				 "fields, not 4 or 5: '%.80s'", lineno, nf,
				 text + at - ll - (nl ? 1 : 0));
			return -1;
		}
		for (k = 0; k < nf; k++)
			field[k] = trim(field[k]);
		name = field[1];
		if (!parse_u64(field[0], &idx) || !parse_u64(field[2], &total) ||
		    !parse_u64(field[3], &free_mib) || total > (1u << 24) ||
		    free_mib > total) {
			snprintf(why, whylen, "nvidia-smi line %zu is not "
				 "'index, name, MiB total, MiB free': '%s, "
				 "%s, %s, %s'", lineno, field[0], field[1],
				 field[2], field[3]);
			return -1;
		}
		if (nf == 5 && !parse_cc(field[4], &ma, &mi))
			ma = mi = -1;	/* "[N/A]" on old drivers */
		if (add_device(d, name, total << 20, free_mib << 20, ma, mi,
			       why, whylen) != 0)
			return -1;
	}
	return (int)d->set.n;
}

static long
ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (deadline->tv_sec - now.tv_sec) * 1000 +
	       (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* Runs argv without a shell; its stdout (at most SMI_MAX_OUTPUT bytes)
 * into buf. Returns the exit status, -1 when it could not start, -2 on
 * the time bound (the child is killed). */
static int
run_bounded(char *const argv[], char *buf, size_t cap, size_t *len)
{
	posix_spawn_file_actions_t fa;
	struct timespec deadline;
	int fds[2], status = 0;
	pid_t pid;
	bool timed_out = false;

	*len = 0;
	if (pipe(fds) != 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
					 O_WRONLY, 0);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += SMI_TIMEOUT_MS / 1000;
	for (;;) {
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		long left = ms_left(&deadline);
		ssize_t r;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		if (poll(&pfd, 1, (int)left) <= 0) {
			if (errno == EINTR)
				continue;
			timed_out = true;
			break;
		}
		if (*len >= cap) {	/* more than any real listing */
			timed_out = true;
			break;
		}
		r = read(fds[0], buf + *len, cap - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		*len += (size_t)r;
	}
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		return -2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int
from_smi(struct qa_gpu_detected *d, char *why, size_t whylen)
{
	const char *prog = getenv("QA_NVIDIA_SMI");
	char *argv[4];
	char fields5[] = "--query-gpu=index,name,memory.total,memory.free,"
			 "compute_cap";
	char fields4[] = "--query-gpu=index,name,memory.total,memory.free";
	char fmt[] = "--format=csv,noheader,nounits";
	char progbuf[512];
	char *buf;
	size_t len = 0;
	int st, pass;

	if (prog && strcmp(prog, "off") == 0)
		return 0;
	snprintf(progbuf, sizeof(progbuf), "%s",
		 prog && *prog ? prog : "nvidia-smi");
	buf = malloc(SMI_MAX_OUTPUT);
	if (!buf) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	/* compute_cap is a field since driver 510; older ones refuse the
	 * whole query, so ask again without it */
	for (pass = 0; pass < 2; pass++) {
		argv[0] = progbuf;
		argv[1] = pass == 0 ? fields5 : fields4;
		argv[2] = fmt;
		argv[3] = NULL;
		st = run_bounded(argv, buf, SMI_MAX_OUTPUT, &len);
		if (st == -1) {
			free(buf);
			return 0;	/* not installed */
		}
		if (st == -2) {
			snprintf(why, whylen, "nvidia-smi gave no answer in "
				 "%d s", SMI_TIMEOUT_MS / 1000);
			free(buf);
			return -1;
		}
		if (st == 0)
			break;
	}
	if (st != 0) {
		snprintf(why, whylen, "nvidia-smi failed (exit %d): no "
			 "working NVIDIA driver", st);
		free(buf);
		return -1;
	}
	d->source = "nvidia-smi";
	st = qa_gpu_parse_smi(buf, len, d, why, whylen);
	free(buf);
	if (st < 0)
		return -1;
	return d->set.n > 0 ? 1 : 0;
}

/* ---- 3. AMD sysfs ------------------------------------------------------ */

/* The first line of a small file, or false. */
static bool
read_small(const char *path, char *out, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t r;

	if (fd < 0)
		return false;
	r = read(fd, out, cap - 1);
	close(fd);
	if (r <= 0)
		return false;
	out[r] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return true;
}

static bool
card_name(const char *n)
{
	size_t i;

	if (strncmp(n, "card", 4) != 0 || !n[4])
		return false;
	for (i = 4; n[i]; i++)
		if (n[i] < '0' || n[i] > '9')
			return false;
	return i < 12;
}

static int
card_order(const void *a, const void *b)
{
	long x = atol(*(char *const *)a + 4), y = atol(*(char *const *)b + 4);

	return (x > y) - (x < y);
}

static int
from_sysfs(struct qa_gpu_detected *d, char *why, size_t whylen)
{
	const char *root = getenv("QA_SYSFS_ROOT");
	char dir[512], path[768], text[SYSFS_MAX_FILE];
	char *cards[64];
	size_t n = 0, i;
	DIR *dp;
	struct dirent *e;
	int rc = 0;

	if (root && strcmp(root, "off") == 0)
		return 0;
	snprintf(dir, sizeof(dir), "%s/class/drm",
		 root && *root ? root : "/sys");
	dp = opendir(dir);
	if (!dp)
		return 0;
	while ((e = readdir(dp)) && n < 64)
		if (card_name(e->d_name))
			cards[n++] = strdup(e->d_name);
	closedir(dp);
	qsort(cards, n, sizeof(*cards), card_order);
	d->source = "sysfs";
	for (i = 0; i < n && rc == 0; i++) {
		uint64_t total, used;
		char name[64];

		if (!cards[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s/device/vendor", dir,
			 cards[i]);
		if (!read_small(path, text, sizeof(text)) ||
		    strcmp(text, "0x1002") != 0)
			continue;	/* not AMD: Intel iGPUs, NVIDIA */
		snprintf(path, sizeof(path), "%s/%s/device/mem_info_vram_total",
			 dir, cards[i]);
		if (!read_small(path, text, sizeof(text)) ||
		    !parse_u64(text, &total))
			continue;	/* no VRAM of its own (an APU) */
		snprintf(path, sizeof(path), "%s/%s/device/mem_info_vram_used",
			 dir, cards[i]);
		if (!read_small(path, text, sizeof(text)) ||
		    !parse_u64(text, &used) || used > total) {
			snprintf(why, whylen, "%s/%s: mem_info_vram_used is "
				 "missing or above the total", dir, cards[i]);
			rc = -1;
			break;
		}
		snprintf(path, sizeof(path), "%s/%s/device/product_name", dir,
			 cards[i]);
		if (!read_small(path, name, sizeof(name)) || !*name)
			snprintf(name, sizeof(name), "AMD GPU (%s)", cards[i]);
		if (add_device(d, name, total, total - used, -1, -1, why,
			       whylen) != 0)
			rc = -1;
	}
	for (i = 0; i < n; i++)
		free(cards[i]);
	if (rc < 0)
		return -1;
	return d->set.n > 0 ? 1 : 0;
}

/* ---- the answer, once per process --------------------------------------- */

static struct qa_gpu_detected detected;
static int detected_rc = 1;	/* 1: not asked yet */
static char detected_why[256];

int
qa_gpu_detect(const struct qa_gpu_detected **out, char *why, size_t whylen)
{
	static int (*const sources[])(struct qa_gpu_detected *, char *,
				      size_t) = {
		from_nvml, from_smi, from_sysfs,
	};
	size_t i;

	if (detected_rc == 1) {
		detected_rc = -1;
		snprintf(detected_why, sizeof(detected_why),
			 "auto found no GPU (no NVML library, no "
			 "nvidia-smi on PATH, no AMD GPU in /sys/class/drm): "
			 "name the devices instead, e.g. --gpus 2x16G or "
			 "--gpus rtx-4090");
		for (i = 0; i < sizeof(sources) / sizeof(*sources); i++) {
			char w[256];
			int r;

			memset(&detected, 0, sizeof(detected));
			w[0] = '\0';
			r = sources[i](&detected, w, sizeof(w));
			if (r > 0) {
				detected_rc = 0;
				break;
			}
			if (r < 0) {
				snprintf(detected_why, sizeof(detected_why),
					 "auto: %s", w);
				break;
			}
		}
	}
	if (detected_rc != 0) {
		snprintf(why, whylen, "%s", detected_why);
		return -1;
	}
	*out = &detected;
	return 0;
}
