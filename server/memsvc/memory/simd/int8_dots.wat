;; Dot products of one int16 query with many int8 rows, 16 components a step (WebAssembly SIMD).
;; Generated into int8_dots_wasm.ts by `deno task gen:simd`; int8_dots.ts is its only caller.
;;
;; out[i] = sum over k < stride of q[k] * rows[i * stride + k], for i < n, as int32: q holds int16
;; (2 bytes a component), rows int8. All addresses are byte offsets into the imported memory;
;; `stride` is a multiple of 16 (rows and the query are padded with zeros). Each step widens 16 row
;; bytes to int16 and multiplies-and-adds them in pairs with the query's (i32x4.dot_i16x8_s); the
;; caller bounds |q| so that no sum overflows (|sum| <= max|q| * 128 * stride < 2^31).
(module
  (import "env" "memory" (memory 1))
  (func (export "dots") (param $q i32) (param $rows i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $end i32) (local $k i32) (local $acc v128) (local $b v128)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (block $row_done
          (loop $step
            (br_if $row_done (i32.ge_u (local.get $k) (local.get $stride)))
            (local.set $b (v128.load (i32.add (local.get $rows) (local.get $k))))
            (local.set $acc
              (i32x4.add (local.get $acc)
                (i32x4.dot_i16x8_s
                  (v128.load (i32.add (local.get $q) (i32.shl (local.get $k) (i32.const 1))))
                  (i16x8.extend_low_i8x16_s (local.get $b)))))
            (local.set $acc
              (i32x4.add (local.get $acc)
                (i32x4.dot_i16x8_s
                  (v128.load offset=16 (i32.add (local.get $q) (i32.shl (local.get $k) (i32.const 1))))
                  (i16x8.extend_high_i8x16_s (local.get $b)))))
            (local.set $k (i32.add (local.get $k) (i32.const 16)))
            (br $step)))
        (i32.store (local.get $out)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $rows (i32.add (local.get $rows) (local.get $stride)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $row))))

  ;; The same sums for four queries at once: out[j * n + i] = sum over k < stride of q_j[k] * row_i[k]
  ;; for j < 4, i < n; the four int16 queries lie one after another from q (2 * stride bytes each).
  ;; Each row's 16 bytes are loaded and widened once for all four queries (the write path's neighbour
  ;; scan of a whole batch: `dotsMany` in int8_dots.ts), about half the instructions per product.
  (func (export "dots4") (param $q i32) (param $rows i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $i i32) (local $k i32) (local $qk i32) (local $qstride i32) (local $outn i32)
    (local $lo v128) (local $hi v128) (local $b v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $qstride (i32.shl (local.get $stride) (i32.const 1)))
    (local.set $outn (i32.shl (local.get $n) (i32.const 2)))
    (local.set $i (i32.const 0))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (block $row_done
          (loop $step
            (br_if $row_done (i32.ge_u (local.get $k) (local.get $stride)))
            (local.set $b (v128.load (i32.add (local.get $rows) (local.get $k))))
            (local.set $lo (i16x8.extend_low_i8x16_s (local.get $b)))
            (local.set $hi (i16x8.extend_high_i8x16_s (local.get $b)))
            ;; $qk: query 0's components k.. (int16); queries 1–3 follow at multiples of 2 * stride.
            (local.set $qk (i32.add (local.get $q) (i32.shl (local.get $k) (i32.const 1))))
            (local.set $a0 (i32x4.add (local.get $a0)
              (i32x4.add (i32x4.dot_i16x8_s (v128.load (local.get $qk)) (local.get $lo))
                (i32x4.dot_i16x8_s (v128.load offset=16 (local.get $qk)) (local.get $hi)))))
            (local.set $qk (i32.add (local.get $qk) (local.get $qstride)))
            (local.set $a1 (i32x4.add (local.get $a1)
              (i32x4.add (i32x4.dot_i16x8_s (v128.load (local.get $qk)) (local.get $lo))
                (i32x4.dot_i16x8_s (v128.load offset=16 (local.get $qk)) (local.get $hi)))))
            (local.set $qk (i32.add (local.get $qk) (local.get $qstride)))
            (local.set $a2 (i32x4.add (local.get $a2)
              (i32x4.add (i32x4.dot_i16x8_s (v128.load (local.get $qk)) (local.get $lo))
                (i32x4.dot_i16x8_s (v128.load offset=16 (local.get $qk)) (local.get $hi)))))
            (local.set $qk (i32.add (local.get $qk) (local.get $qstride)))
            (local.set $a3 (i32x4.add (local.get $a3)
              (i32x4.add (i32x4.dot_i16x8_s (v128.load (local.get $qk)) (local.get $lo))
                (i32x4.dot_i16x8_s (v128.load offset=16 (local.get $qk)) (local.get $hi)))))
            (local.set $k (i32.add (local.get $k) (i32.const 16)))
            (br $step)))
        ;; Row i's sums for queries 0–3 at out + 4i, then n, 2n and 3n sums further on.
        (local.set $qk (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2))))
        (i32.store (local.get $qk)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $a0)) (i32x4.extract_lane 1 (local.get $a0)))
            (i32.add (i32x4.extract_lane 2 (local.get $a0)) (i32x4.extract_lane 3 (local.get $a0)))))
        (local.set $qk (i32.add (local.get $qk) (local.get $outn)))
        (i32.store (local.get $qk)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $a1)) (i32x4.extract_lane 1 (local.get $a1)))
            (i32.add (i32x4.extract_lane 2 (local.get $a1)) (i32x4.extract_lane 3 (local.get $a1)))))
        (local.set $qk (i32.add (local.get $qk) (local.get $outn)))
        (i32.store (local.get $qk)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $a2)) (i32x4.extract_lane 1 (local.get $a2)))
            (i32.add (i32x4.extract_lane 2 (local.get $a2)) (i32x4.extract_lane 3 (local.get $a2)))))
        (local.set $qk (i32.add (local.get $qk) (local.get $outn)))
        (i32.store (local.get $qk)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $a3)) (i32x4.extract_lane 1 (local.get $a3)))
            (i32.add (i32x4.extract_lane 2 (local.get $a3)) (i32x4.extract_lane 3 (local.get $a3)))))
        (local.set $rows (i32.add (local.get $rows) (local.get $stride)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $row)))))
