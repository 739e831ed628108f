// RNN, GRU and LSTM (opsets 7 and 14): the attributes they share and the semantics every
// backend follows.
//
// Inputs X, W, R, then optional B, sequence_lens, initial_h (LSTM: initial_c, P); outputs Y,
// Y_h (LSTM: Y_c), each optional. With G gates (RNN 1, GRU 3 in order z r h, LSTM 4 in order
// i o f c), H = hidden_size and D = num_directions (2 when bidirectional):
//   X [seq, batch, input] (layout 1: [batch, seq, input]); W [D, G*H, input]; R [D, G*H, H];
//   B [D, 2*G*H] = W biases then R biases; sequence_lens [batch] int32 (int64 accepted);
//   initial_h / initial_c [D, batch, H] (layout 1: [batch, D, H]); P [D, 3*H] = i o f.
//   Y [seq, D, batch, H] (layout 1: [batch, seq, D, H]); Y_h / Y_c like initial_h.
// Decisions where the spec is silent, as ONNX Runtime does:
// - `clip` bounds the input of every gate activation (f and g), after the peephole term; the
//   cell state fed to LSTM's h is not clipped.
// - activation_alpha / activation_beta are consumed in order by the activations that take
//   them (Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu: alpha; Affine,
//   ScaledTanh, HardSigmoid: beta); a missing value takes the ONNX op's default. Names match
//   case-insensitively. Bidirectional takes 2x the per-direction list, or the list once
//   (with its alphas and betas) for both directions.
// - LSTM input_forget: f = 1 - i.
// - Batch entry b runs sequence_lens[b] steps (reverse: from its own last step back to 0);
//   Y is 0 past its length, Y_h / Y_c hold its last state, and 0 when the length is 0.
//   A length below 0 or above seq is an error.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

enum class RecurrentKind { kRnn, kGru, kLstm };

struct RecurrentActivation {
  enum Kind { kRelu, kTanh, kSigmoid, kAffine, kLeakyRelu, kThresholdedRelu, kScaledTanh, kHardSigmoid,
              kElu, kSoftsign, kSoftplus };
  Kind kind = kTanh;
  float alpha = 0.f, beta = 0.f;
};

struct RecurrentParams {
  enum class Direction { kForward, kReverse, kBidirectional };
  RecurrentKind kind = RecurrentKind::kLstm;
  Direction direction = Direction::kForward;
  int64_t hiddenSize = 0;  // 0: not given (taken from R's shape)
  // functionsPerDirection() per direction, direction 0 first.
  std::vector<RecurrentActivation> activations;
  bool hasClip = false;
  float clip = 0.f;
  int64_t layout = 0;  // 0: sequence-major, 1: batch-major
  bool inputForget = false;        // LSTM
  bool linearBeforeReset = false;  // GRU

  int numDirections() const { return direction == Direction::kBidirectional ? 2 : 1; }
  int gates() const { return kind == RecurrentKind::kRnn ? 1 : kind == RecurrentKind::kGru ? 3 : 4; }
  int functionsPerDirection() const { return kind == RecurrentKind::kRnn ? 1 : kind == RecurrentKind::kGru ? 2 : 3; }
  // The activation `k` (0: f, 1: g, 2: h) of direction `d`.
  const RecurrentActivation& activation(int d, int k) const {
    return activations[static_cast<size_t>(d * functionsPerDirection() + k)];
  }
  // True when direction `d` walks the sequence backwards.
  bool reversed(int d) const {
    return direction == Direction::kReverse || (direction == Direction::kBidirectional && d == 1);
  }

  static bool kindOf(const std::string& opType, RecurrentKind* kind);
  static Status parse(const Node& node, RecurrentParams* out);
};

// The inputs and outputs by position.
enum RecurrentInput { kRnnX, kRnnW, kRnnR, kRnnB, kRnnSequenceLens, kRnnInitialH, kRnnInitialC, kRnnP };

}  // namespace tessera
