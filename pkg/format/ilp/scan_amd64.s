//go:build amd64 && !purego

#include "textflag.h"

// The kernels' shared steps. CONSTANTS and BROADCAST put ',' ' ' '=' '\\'
// '"' in every byte of Y1 Y2 Y3 Y8 Y9 (all legacy-SSE moves first: an SSE
// instruction after a 256-bit one, with the upper halves dirty, costs a
// state transition, hundreds of nanoseconds here). CLASSIFY(off) compares
// the 32 bytes at off(SI), left in Y0: Y4 ',' or ' ', Y5 ' ', Y6 '=', Y7
// a control character, non-ASCII, '\\' or '"'. LOWMASKS takes their masks
// into R8 (separators), R9 ('='), R10 (bad), R11 (spaces); HIGHMASKS
// merges them into the upper halves (AX is scratch).
#define CONSTANTS \
	MOVQ $0x2c, AX; MOVQ AX, X1; \
	MOVQ $0x20, AX; MOVQ AX, X2; \
	MOVQ $0x3d, AX; MOVQ AX, X3; \
	MOVQ $0x5c, AX; MOVQ AX, X8; \
	MOVQ $0x22, AX; MOVQ AX, X9

#define BROADCAST \
	VPBROADCASTB X1, Y1; VPBROADCASTB X2, Y2; VPBROADCASTB X3, Y3; \
	VPBROADCASTB X8, Y8; VPBROADCASTB X9, Y9

#define CLASSIFY(off) \
	VMOVDQU  off(SI), Y0; \
	VPCMPEQB Y0, Y1, Y4; \
	VPCMPEQB Y0, Y2, Y5; \
	VPOR     Y4, Y5, Y4; \
	VPCMPEQB Y0, Y3, Y6; \
	VPCMPGTB Y0, Y2, Y7; \
	VPCMPEQB Y0, Y8, Y10; \
	VPCMPEQB Y0, Y9, Y11; \
	VPOR     Y10, Y11, Y10; \
	VPOR     Y10, Y7, Y7

#define LOWMASKS \
	VPMOVMSKB Y4, R8; VPMOVMSKB Y6, R9; VPMOVMSKB Y7, R10; VPMOVMSKB Y5, R11

#define HIGHMASKS \
	VPMOVMSKB Y4, AX; SHLQ $32, AX; ORQ AX, R8; \
	VPMOVMSKB Y6, AX; SHLQ $32, AX; ORQ AX, R9; \
	VPMOVMSKB Y7, AX; SHLQ $32, AX; ORQ AX, R10; \
	VPMOVMSKB Y5, AX; SHLQ $32, AX; ORQ AX, R11

// func blocksAVX2(b []byte, parity, prev uint64, skip int, line bool) (r plainResult, n int)
//
// Per 64 bytes (two 32-byte loads): masks, one bit per byte, of ',' or ' '
// (sep), of '=' (eq), of the spaces, and of the bytes that are < 0x20 or
// >= 0x80 (a signed compare with 0x20), '\\' or '"' (bad). Then, as the
// SWAR loop in scan.go does with bytes, the inclusive prefix XOR p of
// m = sep|eq (a carry-less multiply by all ones) must be 1 at every sep
// and 0 at every '=' (they alternate, starting with a separator), and no
// two bits of m may be adjacent. It also counts the spaces and the '='
// (all, and before the first space) and finds the first separator and
// the first and last spaces (-1: none).
//
// Without line, the masks of every block are shifted right by skip first
// (BMI2 SHRX), so that a single block can be the last 64 bytes of a line
// whose first skip bytes were taken already (skip is 0 with line).
//
// With line set, the first '\n' ends the scan: only the bits below it
// count, n is its index in b, and the blocks after it are not read (n is
// -1 when no block holds one). Without it every block is read and n is -1.
//
// plainResult's layout (scan_amd64.go): viol, parity, prev, spaces,
// lastSp, firstSp, firstSep, eqs, eqsBefore, at 56(FP) onwards.
TEXT ·blocksAVX2(SB), NOSPLIT, $0-136
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ parity+24(FP), R12 // 0 or all ones
	MOVQ prev+32(FP), R13   // 0x80 or 0
	SHRQ $7, R13            // 1 or 0
	XORQ R14, R14           // viol
	XORQ R15, R15           // spaces
	MOVQ $-1, AX
	MOVQ AX, r_lastSp+88(FP)
	MOVQ AX, r_firstSp+96(FP)
	MOVQ AX, r_firstSep+104(FP)
	MOVQ AX, n+128(FP)
	MOVQ $0, r_eqs+112(FP)
	MOVQ $0, r_eqsBefore+120(FP)

	CONSTANTS
	MOVQ $0x0a, AX
	MOVQ AX, X14
	BROADCAST
	VPBROADCASTB X14, Y14 // '\n'
	VPCMPEQQ     X13, X13, X13 // all ones, for the prefix XOR

loop:
	CMPQ CX, $64
	JB   done

	// low 32 bytes: sep R8, eq R9, bad R10, spaces R11
	CLASSIFY(0)
	LOWMASKS

	// high 32 bytes, merged into the upper halves
	CLASSIFY(32)
	HIGHMASKS

	CMPB line+48(FP), $0
	JNE  newlines
	MOVQ  skip+40(FP), AX
	SHRXQ AX, R8, R8
	SHRXQ AX, R9, R9
	SHRXQ AX, R10, R10
	SHRXQ AX, R11, R11
	JMP   masked

newlines:
	// A '\n' in the block ends the line: only the bits below it count.
	VPCMPEQB  0(SI), Y14, Y15
	VPMOVMSKB Y15, DI
	VPCMPEQB  32(SI), Y14, Y15
	VPMOVMSKB Y15, AX
	SHLQ      $32, AX
	ORQ       AX, DI
	TESTQ  DI, DI
	JZ     masked
	TZCNTQ DI, AX
	BZHIQ  AX, R8, R8
	BZHIQ  AX, R9, R9
	BZHIQ  AX, R10, R10
	BZHIQ  AX, R11, R11
	ADDQ   SI, AX
	SUBQ   b_base+0(FP), AX
	MOVQ   AX, n+128(FP)

masked:
	ORQ  R10, R14 // bad bytes
	MOVQ R8, BX
	ORQ  R9, BX   // m

	// p = inclusive prefix XOR of m, then the parity before the block
	VMOVQ      BX, X12
	VPCLMULQDQ $0x00, X13, X12, X12
	VMOVQ      X12, DX
	XORQ       R12, DX

	// viol |= m & ((p ^ sep) | m<<1 | prev)
	MOVQ DX, AX
	XORQ R8, AX
	MOVQ BX, DI
	SHLQ $1, DI
	ORQ  DI, AX
	ORQ  R13, AX
	ANDQ BX, AX
	ORQ  AX, R14

	// first separator (the first bit of m: a valid line starts with one)
	TESTQ BX, BX
	JZ    nosep
	CMPQ  r_firstSep+104(FP), $-1
	JNE   nosep
	BSFQ  BX, AX
	ADDQ  SI, AX
	SUBQ  b_base+0(FP), AX
	MOVQ  AX, r_firstSep+104(FP)

nosep:
	// spaces: count, first (and the '=' before it), last
	TESTQ R11, R11
	JZ    nospace
	TESTQ R15, R15
	JNZ   notfirst
	BSFQ  R11, DI
	MOVQ  DI, AX
	ADDQ  SI, AX
	SUBQ  b_base+0(FP), AX
	MOVQ  AX, r_firstSp+96(FP)
	BZHIQ DI, R9, AX // the '=' below the first space
	POPCNTQ AX, AX
	ADDQ  r_eqs+112(FP), AX
	MOVQ  AX, r_eqsBefore+120(FP)

notfirst:
	POPCNTQ R11, AX
	ADDQ    AX, R15
	BSRQ    R11, AX
	ADDQ    SI, AX
	SUBQ    b_base+0(FP), AX
	MOVQ    AX, r_lastSp+88(FP)

nospace:
	POPCNTQ R9, AX
	ADDQ    AX, r_eqs+112(FP)

	// prev = top bit of m; parity = top bit of p, spread
	MOVQ BX, R13
	SHRQ $63, R13
	MOVQ DX, R12
	SARQ $63, R12

	CMPQ n+128(FP), $-1
	JNE  done
	ADDQ $64, SI
	SUBQ $64, CX
	JMP  loop

done:
	VZEROUPPER
	MOVQ R14, r_viol+56(FP)
	MOVQ R12, r_parity+64(FP)
	SHLQ $7, R13
	MOVQ R13, r_prev+72(FP)
	MOVQ R15, r_spaces+80(FP)
	RET
