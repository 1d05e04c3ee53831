// cpuid_mask.so: makes a process see a CPU without AVX-512 and AMX (and, with
// CPUID_MASK=avx2, without AVX-VNNI either), so that every library in it that picks its kernels
// from CPUID (Folio's own detection, ONNX Runtime's MLAS, numpy) runs the code it would run on an
// AVX2-only CPU. The hardware is unchanged: this emulates the instruction set, not another
// microarchitecture.
//
// How: Linux's CPUID faulting (arch_prctl ARCH_SET_CPUID, on CPUs whose flags list cpuid_fault)
// turns every CPUID instruction of the process into a SIGSEGV; the handler runs the real CPUID with
// faulting briefly off, clears the feature bits, and steps over the instruction. The setting is
// inherited by the threads and processes the program starts and reset by execve, so each program
// needs the library preloaded (scripts/bench/as-avx2.sh sets LD_PRELOAD). glibc chose its string
// functions (memcpy, memset) before this library loaded; those keep their AVX-512 variants.
//
// Build: cc -O2 -shared -fPIC -o cpuid_mask.so cpuid_mask.c

#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define ARCH_SET_CPUID 0x1012

static int drop_avx_vnni;

static long set_cpuid_faulting(int on) {
    // ARCH_SET_CPUID's argument is whether CPUID is allowed: 0 makes it fault.
    return syscall(SYS_arch_prctl, ARCH_SET_CPUID, on ? 0 : 1);
}

static void real_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

static void mask(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    if (leaf == 7 && sub == 0) {
        // EBX: AVX512F 16, DQ 17, IFMA 21, PF 26, ER 27, CD 28, BW 30, VL 31.
        r[1] &= ~((1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) | (1u << 27) | (1u << 28) |
                  (1u << 30) | (1u << 31));
        // ECX: VBMI 1, VBMI2 6, VNNI 11, BITALG 12, VPOPCNTDQ 14.
        r[2] &= ~((1u << 1) | (1u << 6) | (1u << 11) | (1u << 12) | (1u << 14));
        // EDX: 4VNNIW 2, 4FMAPS 3, VP2INTERSECT 8, AMX-BF16 22, FP16 23, AMX-TILE 24, AMX-INT8 25.
        r[3] &= ~((1u << 2) | (1u << 3) | (1u << 8) | (1u << 22) | (1u << 23) | (1u << 24) |
                  (1u << 25));
    } else if (leaf == 7 && sub == 1) {
        // EAX: AVX512_BF16 5; AVX-VNNI 4 when asked.
        r[0] &= ~(1u << 5);
        if (drop_avx_vnni) r[0] &= ~(1u << 4);
    }
}

static void on_segv(int sig, siginfo_t *info, void *ctx) {
    ucontext_t *uc = ctx;
    greg_t *g = uc->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)g[REG_RIP];
    (void)info;
    if (ip[0] != 0x0f || ip[1] != 0xa2) {
        // Not a CPUID: a real fault. Fall back to the default action, which the retried
        // instruction then takes.
        signal(sig, SIG_DFL);
        return;
    }
    uint32_t leaf = (uint32_t)g[REG_RAX], sub = (uint32_t)g[REG_RCX], r[4];
    set_cpuid_faulting(0);
    real_cpuid(leaf, sub, r);
    set_cpuid_faulting(1);
    mask(leaf, sub, r);
    g[REG_RAX] = r[0];
    g[REG_RBX] = r[1];
    g[REG_RCX] = r[2];
    g[REG_RDX] = r[3];
    g[REG_RIP] += 2;
}

__attribute__((constructor)) static void start(void) {
    const char *what = getenv("CPUID_MASK");
    drop_avx_vnni = what && strcmp(what, "avx2") == 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, 0);
    if (set_cpuid_faulting(1) != 0) {
        static const char msg[] = "cpuid_mask: this CPU or kernel has no CPUID faulting\n";
        if (write(2, msg, sizeof msg - 1) < 0) _exit(97);
        _exit(97);
    }
}
