//go:build amd64 && !purego

#include "textflag.h"

// func plainBlocksAVX2(b []byte, parity, prev uint64) (viol, parityOut, prevOut uint64, spaces, lastSp int)
//
// Per 32 bytes: masks of ',' or ' ' (sep), '=' (eq) and of the bytes that
// are < 0x20 or >= 0x80 (a signed compare with 0x20), '\\' or '"', one bit
// per byte; then, as the
// SWAR loop in ilp.go does with bytes, the inclusive prefix XOR p of
// m = sep|eq must be 1 at every sep and 0 at every '=' (they alternate,
// starting with a separator) and no two bits of m may be adjacent. It
// also counts the spaces and finds the last one (-1: none).
TEXT ·plainBlocksAVX2(SB), NOSPLIT, $0-80
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ parity+24(FP), R12 // 0 or all ones
	MOVQ prev+32(FP), R13   // 0x80 or 0
	SHRQ $7, R13            // 1 or 0
	XORQ R14, R14           // viol
	XORQ R15, R15           // spaces
	MOVQ $-1, AX
	MOVQ AX, lastSp+72(FP)

	// All legacy-SSE moves before the first 256-bit instruction: an SSE
	// instruction after one (with the upper halves dirty) costs a state
	// transition, hundreds of nanoseconds here.
	MOVQ $0x2c, AX
	MOVQ AX, X1
	MOVQ $0x20, AX
	MOVQ AX, X2
	MOVQ $0x3d, AX
	MOVQ AX, X3
	MOVQ $0x5c, AX
	MOVQ AX, X8
	MOVQ $0x22, AX
	MOVQ AX, X9
	VPBROADCASTB X1, Y1 // ','
	VPBROADCASTB X2, Y2 // ' '
	VPBROADCASTB X3, Y3 // '='
	VPBROADCASTB X8, Y8 // '\\'
	VPBROADCASTB X9, Y9 // '"'

loop:
	CMPQ CX, $32
	JB   done
	VMOVDQU (SI), Y0
	VPCMPEQB Y0, Y1, Y4 // ','
	VPCMPEQB Y0, Y2, Y5 // ' '
	VPOR     Y4, Y5, Y4 // sep
	VPCMPEQB Y0, Y3, Y6 // '='
	VPCMPGTB Y0, Y2, Y7 // 0x20 > byte, signed: < 0x20 or >= 0x80
	VPCMPEQB Y0, Y8, Y10
	VPCMPEQB Y0, Y9, Y11
	VPOR     Y10, Y11, Y10
	VPOR     Y10, Y7, Y7 // or a backslash or a quote
	VPMOVMSKB Y4, R8    // sep
	VPMOVMSKB Y6, R9    // eq
	VPMOVMSKB Y7, R10   // bad
	ORQ  R10, R14
	VPMOVMSKB Y5, R10   // spaces
	TESTL R10, R10
	JZ    nospace
	POPCNTL R10, AX
	ADDQ  AX, R15
	BSRL  R10, AX       // the last space of the block
	ADDQ  SI, AX
	SUBQ  b_base+0(FP), AX
	MOVQ  AX, lastSp+72(FP)

nospace:
	MOVL R8, R11
	ORL  R9, R11        // m

	// p = inclusive prefix XOR of m, then the parity before the block
	MOVL R11, DX
	MOVL DX, BX
	SHLL $1, BX
	XORL BX, DX
	MOVL DX, BX
	SHLL $2, BX
	XORL BX, DX
	MOVL DX, BX
	SHLL $4, BX
	XORL BX, DX
	MOVL DX, BX
	SHLL $8, BX
	XORL BX, DX
	MOVL DX, BX
	SHLL $16, BX
	XORL BX, DX
	XORL R12, DX

	// viol |= m & ((p ^ sep) | m<<1 | prev)
	MOVL DX, BX
	XORL R8, BX
	MOVL R11, DI
	SHLL $1, DI
	ORL  DI, BX
	ORL  R13, BX
	ANDL R11, BX
	ORQ  BX, R14

	// prev = top bit of m; parity = top bit of p, spread
	MOVL    R11, R13
	SHRL    $31, R13
	MOVLQSX DX, R12
	SARQ    $63, R12

	ADDQ $32, SI
	SUBQ $32, CX
	JMP  loop

done:
	VZEROUPPER
	MOVQ R14, viol+40(FP)
	MOVQ R12, parityOut+48(FP)
	SHLQ $7, R13
	MOVQ R13, prevOut+56(FP)
	MOVQ R15, spaces+64(FP)
	RET
