/* SPDX-License-Identifier: MIT */
/*
 * Human units shared by the reporters: parameter counts (1.24 B), byte
 * sizes in binary units (762.8 MiB) and bits per weight.
 */
#ifndef QA_SRC_UNITS_H
#define QA_SRC_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "512", "67.6 K", "268.4 M", "1.24 B", "1.02 T" */
void qa_fmt_params(char *dst, size_t size, uint64_t n);
/* "128 B", "264.0 KiB", "762.8 MiB", "20.00 GiB" */
void qa_fmt_bytes(char *dst, size_t size, uint64_t n);
/* 8 * bytes / params with 2 decimals, or "-" when params is 0 */
void qa_fmt_bpw(char *dst, size_t size, uint64_t bytes, uint64_t params);

#endif /* QA_SRC_UNITS_H */
