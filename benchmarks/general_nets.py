#!/usr/bin/python3
"""Writes stand-ins for public nets a new user tries besides PaddleOCR (issue 9: "speed-ups
must be general"), with random weights, as ONNX files into a folder:

  mobilenetv2_nhwc_224.onnx   MobileNetV2 1.0, ReLU6 as Clip, a 1x224x224x3 NHWC input through
                              a Transpose (as tf2onnx writes TensorFlow models), 1000 classes
  mobilenetv2_nhwc4_512.onnx  the same backbone on a 1x512x512x4 NHWC input (a line-segment
                              detector's, which adds a fourth channel)
  mlsd_512.onnx               an M-LSD-style line-segment detector: that backbone to stride 16,
                              a decoder of bilinear 2x Resizes, Concats with the stride-8 and
                              stride-4 features, 3x3 convs, a dilated (5) 3x3 conv, 16 maps
                              upsampled to 256x256 and a Sigmoid
  ultraface_320x240.onnx      an UltraFace-style face detector (ReLU, depthwise-separable
  ultraface_640x480.onnx      blocks, four heads of 3x3 convs, Transpose / Reshape / Concat,
                              a two-class Softmax over every anchor), NCHW input
  resnet18_224.onnx           ResNet-18 (batch norm folded into the convs, as exporters write
                              it): a 7x7 stride-2 stem, MaxPool, basic blocks of 3x3 convs down
                              to 512 channels at 7x7, 1000 classes
  vit_s_197x384.onnx          a ViT-S/16-shaped transformer encoder, 6 layers: 197 tokens of
                              384, 6 heads, LayerNormalization, GELU written out with Erf (as
                              PyTorch exports it before opset 20)
  bert_base_128x768.onnx      BERT-base-shaped encoder layers, 2 of them: 128 tokens of 768,
                              12 heads, 3072-wide MLP
  bert_base_4x128x768.onnx    the same on a batch of 4 sequences
  yolov8n_640.onnx            a YOLOv8n-shaped detector as PyTorch exports it: convs with SiLU
                              written as x * Sigmoid(x), C2f blocks (Split, bottlenecks,
                              Concat), SPPF (three 5x5 MaxPools), nearest 2x Resizes, the
                              feature pyramid, decoupled heads at strides 8, 16 and 32, and the
                              box decoding (Softmax over 16 bins, a 1x1 Conv, Slice, Sub, Add,
                              Sigmoid over 80 classes): 1x3x640x640 in, 1x84x8400 out
  efficientnet_b0_224.onnx    EfficientNet-B0: MBConv blocks (3x3 and 5x5 depthwise convs,
                              squeeze-and-excite with Swish and Sigmoid), Swish as x * Sigmoid(x)
  lstm_speech_100x1x80.onnx   a speech-style recogniser: 2 LSTM layers of 256 over 100 frames
                              of 80 features, batch 1, a linear layer to 32 classes a frame
  bilstm_crnn_64x1x96.onnx    a CRNN text recogniser's head: 2 bidirectional LSTM layers of
                              128 over 64 columns of 96 features, batch 1, 6625 classes
  lstm_b8_50x8x128.onnx       batched sequences: one LSTM layer of 512, 50 steps, batch 8
  gru_b8_50x8x128.onnx        the same with a GRU
  lstm_b32_50x32x128.onnx     one LSTM layer of 256, 50 steps, batch 32
  style_transfer_256.onnx     a fast style-transfer net: 9x9 convs in and out (3 -> 32, 32 -> 3),
                              InstanceNormalization and ReLU after each conv, stride-2 convs
                              down, five residual blocks of 128, 3x3 stride-2 ConvTransposes up
  resnext_224.onnx            ResNeXt-style bottleneck blocks: 1x1, a 3x3 conv of 32 groups, 1x1
                              with a projection shortcut, three stages to 1024 channels at 14x14
  convnext_224.onnx           ConvNeXt-style blocks: a 4x4 stride-4 stem, 7x7 depthwise convs,
                              a Transpose to channels-last, LayerNormalization, a 4x MLP with GELU
                              written out with Erf, a layer scale, back and a residual Add;
                              2x2 stride-2 downsampling convs between three stages of two
  unet_256.onnx               a small U-Net: pairs of 3x3 convs, 2x2 MaxPools down to 256 channels
                              at 32x32, 2x2 stride-2 ConvTransposes up, Concats with the skips
  wav2vec_features_16000.onnx a wav2vec2-style feature encoder on a second of 16 kHz audio:
                              seven 1-D convs of 512 channels (kernel 10 stride 5, then 3 and 2
                              with stride 2), ReLU
  gpt2_256x768.onnx           GPT-2-small-shaped decoder layers, 2 of them, on a 256-token
                              prompt, as Hugging Face exports them: pre-LayerNormalization, one
                              QKV MatMul and a Split, scores / sqrt(64) plus a causal mask,
                              GELU's tanh form written out with Pow(x, 3)

Only the shapes and the op mix matter for timing; the weights are seeded, so every run
writes the same files. Used by benchmarks/compare_general_nets.sh.

  benchmarks/general_nets.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Net:
    def __init__(self):
        self.nodes, self.weights, self.count = [], [], 0
        self.rng = np.random.default_rng(0)

    def name(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def constant(self, array, prefix="w"):
        n = self.name(prefix)
        self.weights.append(numpy_helper.from_array(array, n))
        return n

    def op(self, op_type, inputs, **attrs):
        y = self.name(op_type)
        self.nodes.append(helper.make_node(op_type, inputs, [y], **attrs))
        return y

    def conv(self, x, cin, cout, k=1, stride=1, group=1, act="relu6", dilation=1):
        """Conv with bias ("same" padding), then ReLU6 (Clip 0..6), ReLU or nothing."""
        w = self.rng.normal(0, np.sqrt(2 / (cin // group * k * k)), (cout, cin // group, k, k))
        b = self.rng.normal(0, 0.01, (cout,))
        dilated = {"dilations": [dilation, dilation]} if dilation != 1 else {}
        y = self.op("Conv", [x, self.constant(w.astype(np.float32)), self.constant(b.astype(np.float32), "b")],
                    kernel_shape=[k, k], strides=[stride, stride], pads=[dilation * (k // 2)] * 4, group=group,
                    **dilated)
        if act == "relu6":
            lo = self.constant(np.array(0, np.float32), "lo")
            hi = self.constant(np.array(6, np.float32), "hi")
            return self.op("Clip", [y, lo, hi])
        if act == "relu":
            return self.op("Relu", [y])
        return y

    def nodes_split(self, x, sizes, axis=1):
        """Split of x along axis into parts of `sizes` (opset 13: sizes as an input)."""
        ys = [self.name("Split") for _ in sizes]
        self.nodes.append(helper.make_node("Split", [x, self.constant(np.array(sizes, np.int64), "split")], ys, axis=axis))
        return ys

    def save(self, path, input_shape, outputs):
        graph = helper.make_graph(self.nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_shape)],
                                  [onnx.ValueInfoProto(name=o) for o in outputs], self.weights)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        onnx.save(model, path)


# MobileNetV2's inverted residual stages: (expansion, output channels, blocks, first block's
# stride), as in the paper.
MOBILENETV2_STAGES = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                      (6, 320, 1, 1)]


def mobilenetv2_stages(n, y, channels, stages):
    """The stem and `stages` of MobileNetV2 from NCHW `y`; returns each stage's output and channels."""
    y = n.conv(y, channels, 32, 3, 2)
    c, outputs = 32, []
    for expand, out, blocks, first_stride in stages:
        for i in range(blocks):
            stride = first_stride if i == 0 else 1
            block_input, hidden = y, c * expand
            if expand != 1:
                y = n.conv(y, c, hidden, 1)
            y = n.conv(y, hidden, hidden, 3, stride, hidden)
            y = n.conv(y, hidden, out, 1, act=None)
            if stride == 1 and c == out:
                y = n.op("Add", [block_input, y])
            c = out
        outputs.append((y, c))
    return outputs


def mobilenetv2(path, size, channels):
    n = Net()
    y, c = mobilenetv2_stages(n, n.op("Transpose", ["x"], perm=[0, 3, 1, 2]), channels, MOBILENETV2_STAGES)[-1]
    y = n.op("Flatten", [n.op("GlobalAveragePool", [n.conv(y, c, 1280, 1)])])
    y = n.op("MatMul", [y, n.constant(n.rng.normal(0, 0.03, (1280, 1000)).astype(np.float32))])
    n.save(path, [1, size, size, channels], [y])


def mlsd(path, size):
    n = Net()
    stages = mobilenetv2_stages(n, n.op("Transpose", ["x"], perm=[0, 3, 1, 2]), 4, MOBILENETV2_STAGES[:5])
    (f4, c4), (f8, c8), (f16, c16) = stages[1], stages[2], stages[4]  # strides 4, 8 and 16

    def upsample(y):
        roi = n.constant(np.zeros(0, np.float32), "roi")
        scales = n.constant(np.array([1, 1, 2, 2], np.float32), "scales")
        return n.op("Resize", [y, roi, scales], mode="linear", coordinate_transformation_mode="half_pixel")

    def merge(deep, c_deep, skip, c_skip):  # both to 64 channels, the deeper one upsampled, concatenated
        return n.op("Concat", [n.conv(skip, c_skip, 64, 1, act="relu"), upsample(n.conv(deep, c_deep, 64, 1, act="relu"))],
                    axis=1)

    def refine(y):  # 128 -> 64 through two 3x3 convs
        return n.conv(n.conv(y, 128, 64, 3, act="relu"), 64, 64, 3, act="relu")

    y = refine(merge(f16, c16, f8, c8))
    y = refine(merge(y, 64, f4, c4))
    y = n.conv(n.conv(y, 64, 64, 3, act="relu", dilation=5), 64, 64, 3, act="relu")
    y = n.op("Sigmoid", [upsample(n.conv(y, 64, 16, 1, act=None))])
    n.save(path, [1, size, size, 4], [y])


def ultraface(path, height, width):
    n = Net()

    def separable(y, cin, cout, stride):
        return n.conv(n.conv(y, cin, cin, 3, stride, cin, act="relu"), cin, cout, 1, act="relu")

    y = n.conv("x", 3, 16, 3, 2, act="relu")
    for cin, cout, stride in [(16, 32, 1), (32, 32, 2), (32, 32, 1), (32, 64, 2), (64, 64, 1), (64, 64, 1)]:
        y = separable(y, cin, cout, stride)
    f1 = y
    for cin, cout, stride in [(64, 128, 2), (128, 128, 1), (128, 128, 1)]:
        y = separable(y, cin, cout, stride)
    f2 = y
    y = separable(separable(y, 128, 256, 2), 256, 256, 1)
    f3 = y
    y = n.conv(n.conv(y, 256, 64, 1, act="relu"), 64, 64, 3, 2, 64, act="relu")
    f4 = n.conv(y, 64, 256, 1, act="relu")
    scores, boxes = [], []
    for feature, c, anchors in [(f1, 64, 3), (f2, 128, 2), (f3, 256, 2), (f4, 256, 3)]:
        for values, heads in [(2, scores), (4, boxes)]:
            z = n.op("Transpose", [n.conv(feature, c, anchors * values, 3, act=None)], perm=[0, 2, 3, 1])
            heads.append(n.op("Reshape", [z, n.constant(np.array([1, -1, values], np.int64), "shape")]))
    s = n.op("Softmax", [n.op("Concat", scores, axis=1)], axis=2)
    n.save(path, [1, 3, height, width], [s, n.op("Concat", boxes, axis=1)])


def resnet18(path, size):
    n = Net()
    y = n.conv("x", 3, 64, 7, 2, act="relu")
    y = n.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c = 64
    for out, stride in [(64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1)]:
        z = n.conv(n.conv(y, c, out, 3, stride, act="relu"), out, out, 3, act=None)
        shortcut = y if stride == 1 and c == out else n.conv(y, c, out, 1, stride, act=None)
        y = n.op("Relu", [n.op("Add", [z, shortcut])])
        c = out
    y = n.op("Flatten", [n.op("GlobalAveragePool", [y])])
    y = n.op("MatMul", [y, n.constant(n.rng.normal(0, 0.03, (512, 1000)).astype(np.float32))])
    n.save(path, [1, 3, size, size], [y])


def encoder(path, tokens, dim, layers, heads, batch=1):
    """Pre-norm transformer layers: attention (q, k, v, output projections) and a 4x MLP."""
    n = Net()
    hd = dim // heads

    def norm(y):
        return n.op("LayerNormalization", [y, n.constant(np.ones(dim, np.float32), "g"),
                                           n.constant(np.zeros(dim, np.float32), "b")], axis=-1, epsilon=1e-5)

    def linear(y, fan_in, fan_out):
        w = n.constant(n.rng.normal(0, fan_in ** -0.5, (fan_in, fan_out)).astype(np.float32))
        return n.op("Add", [n.op("MatMul", [y, w]), n.constant(n.rng.normal(0, 0.01, fan_out).astype(np.float32), "b")])

    def heads_of(y):  # [batch, tokens, dim] -> [batch, heads, tokens, hd]
        y = n.op("Reshape", [y, n.constant(np.array([batch, tokens, heads, hd], np.int64), "shape")])
        return n.op("Transpose", [y], perm=[0, 2, 1, 3])

    def scalar(v):
        return n.constant(np.array(v, np.float32), "c")

    x = "x"
    for _ in range(layers):
        h = norm(x)
        q, k, v = (heads_of(linear(h, dim, dim)) for _ in range(3))
        scores = n.op("Mul", [n.op("MatMul", [q, n.op("Transpose", [k], perm=[0, 1, 3, 2])]), scalar(hd ** -0.5)])
        o = n.op("Transpose", [n.op("MatMul", [n.op("Softmax", [scores], axis=-1), v])], perm=[0, 2, 1, 3])
        o = n.op("Reshape", [o, n.constant(np.array([batch, tokens, dim], np.int64), "shape")])
        x = n.op("Add", [x, linear(o, dim, dim)])
        h = linear(norm(x), dim, 4 * dim)
        erf = n.op("Erf", [n.op("Div", [h, scalar(2 ** 0.5)])])
        gelu = n.op("Mul", [n.op("Mul", [h, n.op("Add", [erf, scalar(1)])]), scalar(0.5)])
        x = n.op("Add", [x, linear(gelu, 4 * dim, dim)])
    n.save(path, [batch, tokens, dim], [norm(x)])


def silu(n, y):
    return n.op("Mul", [y, n.op("Sigmoid", [y])])


def yolov8n(path, size):
    n = Net()

    def conv(y, cin, cout, k=1, stride=1):
        return silu(n, n.conv(y, cin, cout, k, stride, act=None))

    def c2f(y, cin, cout, blocks, shortcut):
        c = cout // 2
        parts = list(n.nodes_split(conv(y, cin, 2 * c), [c, c]))
        for _ in range(blocks):
            b = conv(conv(parts[-1], c, c, 3), c, c, 3)
            parts.append(n.op("Add", [parts[-1], b]) if shortcut else b)
        return conv(n.op("Concat", parts, axis=1), (2 + blocks) * c, cout)

    def up(y):
        roi = n.constant(np.zeros(0, np.float32), "roi")
        return n.op("Resize", [y, roi, n.constant(np.array([1, 1, 2, 2], np.float32), "scales")], mode="nearest")

    y = conv(conv("x", 3, 16, 3, 2), 16, 32, 3, 2)
    y = c2f(y, 32, 32, 1, True)
    p3 = c2f(conv(y, 32, 64, 3, 2), 64, 64, 2, True)
    p4 = c2f(conv(p3, 64, 128, 3, 2), 128, 128, 2, True)
    y = c2f(conv(p4, 128, 256, 3, 2), 256, 256, 1, True)
    y = conv(y, 256, 128)  # SPPF
    pools = [y]
    for _ in range(3):
        pools.append(n.op("MaxPool", [pools[-1]], kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2]))
    p5 = conv(n.op("Concat", pools, axis=1), 512, 256)
    h4 = c2f(n.op("Concat", [up(p5), p4], axis=1), 384, 128, 1, False)
    h3 = c2f(n.op("Concat", [up(h4), p3], axis=1), 192, 64, 1, False)
    h4 = c2f(n.op("Concat", [conv(h3, 64, 64, 3, 2), h4], axis=1), 192, 128, 1, False)
    h5 = c2f(n.op("Concat", [conv(h4, 128, 128, 3, 2), p5], axis=1), 384, 256, 1, False)
    outs = []
    for h, c in [(h3, 64), (h4, 128), (h5, 256)]:
        box = n.conv(conv(conv(h, c, 64, 3), 64, 64, 3), 64, 64, 1, act=None)
        cls = n.conv(conv(conv(h, c, 80, 3), 80, 80, 3), 80, 80, 1, act=None)
        y = n.op("Concat", [box, cls], axis=1)
        outs.append(n.op("Reshape", [y, n.constant(np.array([1, 144, -1], np.int64), "shape")]))
    y = n.op("Concat", outs, axis=2)
    box, cls = n.nodes_split(y, [64, 80], axis=1)
    anchors = sum((size // s) ** 2 for s in (8, 16, 32))
    bins = n.op("Softmax", [n.op("Transpose", [n.op("Reshape", [box, n.constant(np.array([1, 4, 16, anchors], np.int64),
                                                                                           "shape")])], perm=[0, 2, 1, 3])],
                axis=1)
    dist = n.op("Conv", [bins, n.constant(np.arange(16, dtype=np.float32).reshape(1, 16, 1, 1))])
    dist = n.op("Reshape", [dist, n.constant(np.array([1, 4, anchors], np.int64), "shape")])
    lt, rb = n.nodes_split(dist, [2, 2], axis=1)
    points = n.constant(n.rng.uniform(0, size / 8, (1, 2, anchors)).astype(np.float32), "anchor")
    x1y1, x2y2 = n.op("Sub", [points, lt]), n.op("Add", [points, rb])
    centre = n.op("Div", [n.op("Add", [x1y1, x2y2]), n.constant(np.array(2, np.float32), "c")])
    boxes = n.op("Mul", [n.op("Concat", [centre, n.op("Sub", [x2y2, x1y1])], axis=1),
                         n.constant(n.rng.choice([8.0, 16.0, 32.0], (1, 1, anchors)).astype(np.float32), "stride")])
    n.save(path, [1, 3, size, size], [n.op("Concat", [boxes, n.op("Sigmoid", [cls])], axis=1)])


# EfficientNet-B0's stages: (depthwise kernel, stride, expansion, output channels, blocks).
EFFICIENTNET_B0_STAGES = [(3, 1, 1, 16, 1), (3, 2, 6, 24, 2), (5, 2, 6, 40, 2), (3, 2, 6, 80, 3), (5, 1, 6, 112, 3),
                          (5, 2, 6, 192, 4), (3, 1, 6, 320, 1)]


def efficientnet_b0(path, size):
    n = Net()

    def conv(y, cin, cout, k=1, stride=1, group=1):
        return silu(n, n.conv(y, cin, cout, k, stride, group, act=None))

    y, c = conv("x", 3, 32, 3, 2), 32
    for k, first_stride, expand, out, blocks in EFFICIENTNET_B0_STAGES:
        for i in range(blocks):
            stride = first_stride if i == 0 else 1
            block_input, hidden = y, c * expand
            if expand != 1:
                y = conv(y, c, hidden)
            y = conv(y, hidden, hidden, k, stride, hidden)
            squeeze = max(1, c // 4)
            gate = n.op("GlobalAveragePool", [y])
            gate = n.op("Sigmoid", [n.conv(conv(gate, hidden, squeeze), squeeze, hidden, act=None)])
            y = n.conv(n.op("Mul", [y, gate]), hidden, out, 1, act=None)
            if stride == 1 and c == out:
                y = n.op("Add", [block_input, y])
            c = out
    y = n.op("Flatten", [n.op("GlobalAveragePool", [conv(y, c, 1280)])])
    y = n.op("MatMul", [y, n.constant(n.rng.normal(0, 0.03, (1280, 1000)).astype(np.float32))])
    n.save(path, [1, 3, size, size], [y])


def recurrent(path, kind, steps, batch, features, hidden, layers, classes=None, bidirectional=False):
    """Stacked ONNX LSTM or GRU layers on a [steps, batch, features] input (as PyTorch exports
    nn.LSTM): each layer's Y [steps, directions, batch, hidden] is made [steps, batch,
    directions * hidden] for the next; then a linear layer to `classes`, if any."""
    n = Net()
    gates = 4 if kind == "LSTM" else 3
    directions = 2 if bidirectional else 1
    y, size = "x", features
    for _ in range(layers):
        scale = 1 / np.sqrt(hidden)
        w = n.constant(n.rng.uniform(-scale, scale, (directions, gates * hidden, size)).astype(np.float32))
        r = n.constant(n.rng.uniform(-scale, scale, (directions, gates * hidden, hidden)).astype(np.float32))
        b = n.constant(n.rng.uniform(-scale, scale, (directions, 2 * gates * hidden)).astype(np.float32), "b")
        y = n.op(kind, [y, w, r, b], hidden_size=hidden, direction="bidirectional" if bidirectional else "forward")
        y = n.op("Transpose", [y], perm=[0, 2, 1, 3])
        size = directions * hidden
        y = n.op("Reshape", [y, n.constant(np.array([steps, batch, size], np.int64), "shape")])
    if classes:
        y = n.op("MatMul", [y, n.constant(n.rng.normal(0, 0.05, (size, classes)).astype(np.float32))])
    n.save(path, [steps, batch, features], [y])


def style_transfer(path, size):
    n = Net()

    def norm_conv(y, cin, cout, k, stride=1, relu=True):
        y = n.conv(y, cin, cout, k, stride, act=None)
        y = n.op("InstanceNormalization", [y, n.constant(np.ones(cout, np.float32), "scale"),
                                           n.constant(np.zeros(cout, np.float32), "b")], epsilon=1e-5)
        return n.op("Relu", [y]) if relu else y

    y = norm_conv(norm_conv(norm_conv("x", 3, 32, 9), 32, 64, 3, 2), 64, 128, 3, 2)
    for _ in range(5):
        y = n.op("Add", [y, norm_conv(norm_conv(y, 128, 128, 3), 128, 128, 3, relu=False)])
    for cin, cout in [(128, 64), (64, 32)]:
        w = n.rng.normal(0, np.sqrt(2 / (cin * 9)), (cin, cout, 3, 3)).astype(np.float32)
        y = n.op("ConvTranspose", [y, n.constant(w)], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                 output_padding=[1, 1])
        y = n.op("Relu", [n.op("InstanceNormalization", [y, n.constant(np.ones(cout, np.float32), "scale"),
                                                         n.constant(np.zeros(cout, np.float32), "b")])])
    n.save(path, [1, 3, size, size], [n.conv(y, 32, 3, 9, act=None)])


def resnext(path, size):
    n = Net()
    y = n.conv("x", 3, 64, 7, 2, act="relu")
    y = n.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c = 64
    for width, out, stride in [(128, 256, 1), (256, 512, 2), (512, 1024, 2)]:
        z = n.conv(n.conv(y, c, width, 1, act="relu"), width, width, 3, stride, group=32, act="relu")
        z = n.conv(z, width, out, 1, act=None)
        y = n.op("Relu", [n.op("Add", [z, n.conv(y, c, out, 1, stride, act=None)])])
        c = out
    n.save(path, [1, 3, size, size], [y])


def convnext(path, size):
    n = Net()

    def patchify(y, cin, cout, k):
        w = n.rng.normal(0, np.sqrt(2 / (cin * k * k)), (cout, cin, k, k)).astype(np.float32)
        return n.op("Conv", [y, n.constant(w), n.constant(np.zeros(cout, np.float32), "b")], kernel_shape=[k, k],
                    strides=[k, k])

    def linear(y, cin, cout):
        w = n.rng.normal(0, np.sqrt(1 / cin), (cin, cout)).astype(np.float32)
        return n.op("Add", [n.op("MatMul", [y, n.constant(w)]), n.constant(np.zeros(cout, np.float32), "b")])

    y, c = patchify("x", 3, 96, 4), 96
    for stage, width in enumerate([96, 192, 384]):
        if stage:
            y, c = patchify(y, c, width, 2), width
        for _ in range(2):
            z = n.op("Transpose", [n.conv(y, c, c, 7, 1, group=c, act=None)], perm=[0, 2, 3, 1])
            z = n.op("LayerNormalization", [z, n.constant(np.ones(c, np.float32), "scale"),
                                            n.constant(np.zeros(c, np.float32), "b")], axis=-1, epsilon=1e-6)
            z = linear(z, c, 4 * c)
            erf = n.op("Erf", [n.op("Mul", [z, n.constant(np.array(0.70710678, np.float32), "k")])])
            z = n.op("Mul", [n.op("Mul", [z, n.op("Add", [erf, n.constant(np.array(1, np.float32), "one")])]),
                             n.constant(np.array(0.5, np.float32), "half")])
            z = n.op("Mul", [linear(z, 4 * c, c), n.constant(np.full(c, 0.1, np.float32), "gamma")])
            y = n.op("Add", [y, n.op("Transpose", [z], perm=[0, 3, 1, 2])])
    n.save(path, [1, 3, size, size], [y])


def unet(path, size):
    n = Net()
    y, c, skips = "x", 3, []
    for width in [32, 64, 128]:
        y = n.conv(n.conv(y, c, width, 3, act="relu"), width, width, 3, act="relu")
        skips.append((y, width))
        y, c = n.op("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2]), width
    y, c = n.conv(n.conv(y, c, 256, 3, act="relu"), 256, 256, 3, act="relu"), 256
    for skip, width in reversed(skips):
        w = n.rng.normal(0, np.sqrt(2 / (c * 4)), (c, width, 2, 2)).astype(np.float32)
        y = n.op("ConvTranspose", [y, n.constant(w), n.constant(np.zeros(width, np.float32), "b")],
                 kernel_shape=[2, 2], strides=[2, 2])
        y = n.op("Concat", [skip, y], axis=1)
        y, c = n.conv(n.conv(y, 2 * width, width, 3, act="relu"), width, width, 3, act="relu"), width
    n.save(path, [1, 3, size, size], [n.conv(y, c, 2, 1, act=None)])


def wav2vec_features(path, samples):
    n = Net()
    y, c = "x", 1
    for k, stride in [(10, 5), (3, 2), (3, 2), (3, 2), (3, 2), (2, 2), (2, 2)]:
        w = n.rng.normal(0, np.sqrt(2 / (c * k)), (512, c, k)).astype(np.float32)
        y = n.op("Relu", [n.op("Conv", [y, n.constant(w), n.constant(np.zeros(512, np.float32), "b")],
                               kernel_shape=[k], strides=[stride])])
        c = 512
    n.save(path, [1, 1, samples], [y])


def gpt2(path, tokens, width=768, heads=12, layers=2):
    n = Net()
    head = width // heads

    def const(a, prefix="k"):
        return n.constant(np.asarray(a, np.float32), prefix)

    def shape(dims):
        return n.constant(np.array(dims, np.int64), "shape")

    def norm(y):
        return n.op("LayerNormalization", [y, const(np.ones(width), "scale"), const(np.zeros(width), "b")], axis=-1,
                    epsilon=1e-5)

    def linear(y, cin, cout):
        return n.op("Add", [n.op("MatMul", [y, const(n.rng.normal(0, 0.02, (cin, cout)), "w")]),
                            const(np.zeros(cout), "b")])

    def split_heads(y):
        return n.op("Transpose", [n.op("Reshape", [y, shape([1, tokens, heads, head])])], perm=[0, 2, 1, 3])

    mask = np.triu(np.full((tokens, tokens), -1e9, np.float32), 1)  # no token sees a later one
    x = "x"
    for _ in range(layers):
        q, k, v = (split_heads(t) for t in n.nodes_split(linear(norm(x), width, 3 * width), [width] * 3, axis=2))
        scores = n.op("Div", [n.op("MatMul", [q, n.op("Transpose", [k], perm=[0, 1, 3, 2])]), const(np.sqrt(head))])
        p = n.op("Softmax", [n.op("Add", [scores, const(mask, "mask")])], axis=-1)
        a = n.op("Reshape", [n.op("Transpose", [n.op("MatMul", [p, v])], perm=[0, 2, 1, 3]), shape([1, tokens, width])])
        x = n.op("Add", [x, linear(a, width, width)])
        h = linear(norm(x), width, 4 * width)
        cube = n.op("Mul", [n.op("Pow", [h, const(3.0)]), const(0.044715)])
        t = n.op("Tanh", [n.op("Mul", [n.op("Add", [h, cube]), const(np.sqrt(2 / np.pi))])])
        h = n.op("Mul", [n.op("Mul", [h, const(0.5)]), n.op("Add", [t, const(1.0)])])
        x = n.op("Add", [x, linear(h, 4 * width, width)])
    n.save(path, [1, tokens, width], [norm(x)])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: general_nets.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    mobilenetv2(os.path.join(out, "mobilenetv2_nhwc_224.onnx"), 224, 3)
    mobilenetv2(os.path.join(out, "mobilenetv2_nhwc4_512.onnx"), 512, 4)
    mlsd(os.path.join(out, "mlsd_512.onnx"), 512)
    ultraface(os.path.join(out, "ultraface_320x240.onnx"), 240, 320)
    ultraface(os.path.join(out, "ultraface_640x480.onnx"), 480, 640)
    resnet18(os.path.join(out, "resnet18_224.onnx"), 224)
    encoder(os.path.join(out, "vit_s_197x384.onnx"), 197, 384, 6, 6)
    encoder(os.path.join(out, "bert_base_128x768.onnx"), 128, 768, 2, 12)
    encoder(os.path.join(out, "bert_base_4x128x768.onnx"), 128, 768, 2, 12, batch=4)
    yolov8n(os.path.join(out, "yolov8n_640.onnx"), 640)
    efficientnet_b0(os.path.join(out, "efficientnet_b0_224.onnx"), 224)
    recurrent(os.path.join(out, "lstm_speech_100x1x80.onnx"), "LSTM", 100, 1, 80, 256, 2, classes=32)
    recurrent(os.path.join(out, "bilstm_crnn_64x1x96.onnx"), "LSTM", 64, 1, 96, 128, 2, classes=6625,
              bidirectional=True)
    recurrent(os.path.join(out, "lstm_b8_50x8x128.onnx"), "LSTM", 50, 8, 128, 512, 1)
    recurrent(os.path.join(out, "gru_b8_50x8x128.onnx"), "GRU", 50, 8, 128, 512, 1)
    recurrent(os.path.join(out, "lstm_b32_50x32x128.onnx"), "LSTM", 50, 32, 128, 256, 1)
    style_transfer(os.path.join(out, "style_transfer_256.onnx"), 256)
    resnext(os.path.join(out, "resnext_224.onnx"), 224)
    convnext(os.path.join(out, "convnext_224.onnx"), 224)
    unet(os.path.join(out, "unet_256.onnx"), 256)
    wav2vec_features(os.path.join(out, "wav2vec_features_16000.onnx"), 16000)
    gpt2(os.path.join(out, "gpt2_256x768.onnx"), 256)


if __name__ == "__main__":
    main()
