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

// func plainBlocksAVX2(b []byte, parity, prev uint64, skip int) (r plainResult)
//
// Per 64 bytes (two 32-byte loads): masks, one bit per byte, of ',' or ' '
// (sep), of '=' (eq), of the spaces, and of the bytes that are < 0x20 or
// >= 0x80 (a signed compare with 0x20), '\\' or '"' (bad). Then, as the
// SWAR loop in ilp.go does with bytes, the inclusive prefix XOR p of
// m = sep|eq (a carry-less multiply by all ones) must be 1 at every sep
// and 0 at every '=' (they alternate, starting with a separator), and no
// two bits of m may be adjacent. It also counts the spaces and the '='
// (all, and before the first space) and finds the first separator and
// the first and last spaces (-1: none).
//
// The masks of every block are shifted right by skip first (BMI2 SHRX),
// so that a single block can be the last 64 bytes of a line whose first
// skip bytes were taken already.
//
// plainResult's layout (ilp_amd64.go): viol, parity, prev, spaces, lastSp,
// firstSp, firstSep, eqs, eqsBefore, at 48(FP) onwards.
TEXT ·plainBlocksAVX2(SB), NOSPLIT, $0-120
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ parity+24(FP), R12 // 0 or all ones
	MOVQ prev+32(FP), R13   // 0x80 or 0
	SHRQ $7, R13            // 1 or 0
	XORQ R14, R14           // viol
	XORQ R15, R15           // spaces
	MOVQ $-1, AX
	MOVQ AX, r_lastSp+80(FP)
	MOVQ AX, r_firstSp+88(FP)
	MOVQ AX, r_firstSep+96(FP)
	MOVQ $0, r_eqs+104(FP)
	MOVQ $0, r_eqsBefore+112(FP)

	CONSTANTS
	BROADCAST
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

	MOVQ  skip+40(FP), AX
	SHRXQ AX, R8, R8
	SHRXQ AX, R9, R9
	SHRXQ AX, R10, R10
	SHRXQ AX, R11, R11

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
	CMPQ  r_firstSep+96(FP), $-1
	JNE   nosep
	BSFQ  BX, AX
	ADDQ  SI, AX
	SUBQ  b_base+0(FP), AX
	MOVQ  AX, r_firstSep+96(FP)

nosep:
	// spaces: count, first (and the '=' before it), last
	TESTQ R11, R11
	JZ    nospace
	TESTQ R15, R15
	JNZ   notfirst
	BSFQ  R11, AX
	MOVQ  AX, DI
	ADDQ  SI, AX
	SUBQ  b_base+0(FP), AX
	MOVQ  AX, r_firstSp+88(FP)
	MOVQ  $1, AX
	MOVQ  DI, CX
	SHLQ  CX, AX
	SUBQ  $1, AX  // the bits below the first space
	ANDQ  R9, AX
	POPCNTQ AX, AX
	ADDQ  r_eqs+104(FP), AX
	MOVQ  AX, r_eqsBefore+112(FP)
	MOVQ  b_len+8(FP), CX // restore the count of bytes left
	SUBQ  SI, CX
	ADDQ  b_base+0(FP), CX

notfirst:
	POPCNTQ R11, AX
	ADDQ    AX, R15
	BSRQ    R11, AX
	ADDQ    SI, AX
	SUBQ    b_base+0(FP), AX
	MOVQ    AX, r_lastSp+80(FP)

nospace:
	POPCNTQ R9, AX
	ADDQ    AX, r_eqs+104(FP)

	// prev = top bit of m; parity = top bit of p, spread
	MOVQ BX, R13
	SHRQ $63, R13
	MOVQ DX, R12
	SARQ $63, R12

	ADDQ $64, SI
	SUBQ $64, CX
	JMP  loop

done:
	VZEROUPPER
	MOVQ R14, r_viol+48(FP)
	MOVQ R12, r_parity+56(FP)
	SHLQ $7, R13
	MOVQ R13, r_prev+64(FP)
	MOVQ R15, r_spaces+72(FP)
	RET

// func lineAVX2(b []byte) (r plainResult, n int)
//
// plainBlocksAVX2's checks for the line that starts at b[0], found in the
// same pass: n is the index of the first '\n' in b, and r describes
// b[:n] (positions are indexes in b). Only whole 64-byte blocks of b are
// read: when none of them holds a '\n', n is -1 and r is meaningless.
TEXT ·lineAVX2(SB), NOSPLIT, $0-104
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	XORQ R12, R12 // parity
	XORQ R13, R13 // prev
	XORQ R14, R14 // viol
	XORQ R15, R15 // spaces
	MOVQ $-1, AX
	MOVQ AX, r_lastSp+56(FP)
	MOVQ AX, r_firstSp+64(FP)
	MOVQ AX, r_firstSep+72(FP)
	MOVQ AX, n+96(FP)
	MOVQ $0, r_eqs+80(FP)
	MOVQ $0, r_eqsBefore+88(FP)

	CONSTANTS
	MOVQ $0x0a, AX
	MOVQ AX, X14
	BROADCAST
	VPBROADCASTB X14, Y14 // '\n'
	VPCMPEQQ     X13, X13, X13

lloop:
	CMPQ CX, $64
	JB   ldone

	// low 32 bytes: sep R8, eq R9, bad R10, spaces R11, newlines DI
	CLASSIFY(0)
	VPCMPEQB  Y0, Y14, Y15
	LOWMASKS
	VPMOVMSKB Y15, DI

	// high 32 bytes, merged into the upper halves
	CLASSIFY(32)
	VPCMPEQB  Y0, Y14, Y15
	HIGHMASKS
	VPMOVMSKB Y15, AX
	SHLQ      $32, AX
	ORQ       AX, DI

	// A '\n' in the block ends the line: only the bits below it count.
	TESTQ  DI, DI
	JZ     lnonl
	TZCNTQ DI, AX
	BZHIQ  AX, R8, R8
	BZHIQ  AX, R9, R9
	BZHIQ  AX, R10, R10
	BZHIQ  AX, R11, R11
	ADDQ   SI, AX
	SUBQ   b_base+0(FP), AX
	MOVQ   AX, n+96(FP)

lnonl:
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

	// first separator
	TESTQ BX, BX
	JZ    lnosep
	CMPQ  r_firstSep+72(FP), $-1
	JNE   lnosep
	BSFQ  BX, AX
	ADDQ  SI, AX
	SUBQ  b_base+0(FP), AX
	MOVQ  AX, r_firstSep+72(FP)

lnosep:
	// spaces: count, first (and the '=' before it), last
	TESTQ R11, R11
	JZ    lnospace
	TESTQ R15, R15
	JNZ   lnotfirst
	BSFQ  R11, DI
	MOVQ  DI, AX
	ADDQ  SI, AX
	SUBQ  b_base+0(FP), AX
	MOVQ  AX, r_firstSp+64(FP)
	BZHIQ DI, R9, AX // the '=' below the first space
	POPCNTQ AX, AX
	ADDQ  r_eqs+80(FP), AX
	MOVQ  AX, r_eqsBefore+88(FP)

lnotfirst:
	POPCNTQ R11, AX
	ADDQ    AX, R15
	BSRQ    R11, AX
	ADDQ    SI, AX
	SUBQ    b_base+0(FP), AX
	MOVQ    AX, r_lastSp+56(FP)

lnospace:
	POPCNTQ R9, AX
	ADDQ    AX, r_eqs+80(FP)

	// prev = top bit of m; parity = top bit of p, spread
	MOVQ BX, R13
	SHRQ $63, R13
	MOVQ DX, R12
	SARQ $63, R12

	CMPQ n+96(FP), $-1
	JNE  ldone
	ADDQ $64, SI
	SUBQ $64, CX
	JMP  lloop

ldone:
	VZEROUPPER
	MOVQ R14, r_viol+24(FP)
	MOVQ R12, r_parity+32(FP)
	SHLQ $7, R13
	MOVQ R13, r_prev+40(FP)
	MOVQ R15, r_spaces+48(FP)
	RET
