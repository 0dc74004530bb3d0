#!/usr/bin/env python3
"""Writes a DxDispatch model (vkdml-dispatch) per ConvolutionInteger layer: UINT8 x INT8 with
per-tensor zero points, dispatched once, then its input buffer written to <name>.bin. The
timeline kernels write their records over the input; its buffer is made larger than the tensor
by 160 bytes for as many workgroups as any plan of the layer can make.

    tools/kernel_timeline/models.py OUT_DIR [name=N,C,H,W,OC,K,STRIDE,PAD ...]

Without layers: a few of ResNet-50's at batch 1 and 32 (bench/cases.cpp has them all)."""
import json
import os
import sys

RESNET50 = {
    "n1_layer1_1x1_64_64_56": (1, 64, 56, 56, 64, 1, 1, 0),
    "n1_layer2_1x1_256_128_56": (1, 256, 56, 56, 128, 1, 1, 0),
    "n1_layer3_1x1_256_1024_14": (1, 256, 14, 14, 1024, 1, 1, 0),
    "n1_layer3_1x1_1024_256_14": (1, 1024, 14, 14, 256, 1, 1, 0),
    "n1_layer3_3x3_256_256_14": (1, 256, 14, 14, 256, 3, 1, 1),
    "n32_layer2_1x1_512_128_28": (32, 512, 28, 28, 128, 1, 1, 0),
    "n32_layer3_1x1_256_1024_14": (32, 256, 14, 14, 1024, 1, 1, 0),
    "n32_layer3_3x3_256_256_14": (32, 256, 14, 14, 256, 3, 1, 1),
}
RECORD_BYTES = 160
MOST_CHUNKS = 40  # above the plan's K split (kSplitMaxChunks)


def model(name, n, c, h, w, oc, k, stride, pad):
    oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
    m = n * oh * ow
    most_groups = -(-m // 128) * -(-oc // 64) * MOST_CHUNKS  # tiles of at least 128 x 64
    tensor = {"DataType": "UINT8", "Sizes": [n, c, h, w]}
    return {
        "resources": {
            "x": {"initialValuesDataType": "UINT8",
                  "initialValues": {"valueCount": n * c * h * w + RECORD_BYTES * most_groups, "value": 3}},
            "xz": {"initialValuesDataType": "UINT8", "initialValues": [128]},
            "f": {"initialValuesDataType": "INT8", "initialValues": {"valueCount": oc * c * k * k, "value": 1}},
            "fz": {"initialValuesDataType": "INT8", "initialValues": [0]},
            "y": {"initialValuesDataType": "INT32", "initialValues": {"valueCount": m * oc, "value": 0}},
        },
        "dispatchables": {"conv": {"type": "CONVOLUTION_INTEGER", "desc": {
            "InputTensor": tensor,
            "InputZeroPointTensor": {"DataType": "UINT8", "Sizes": [1, 1, 1, 1]},
            "FilterTensor": {"DataType": "INT8", "Sizes": [oc, c, k, k]},
            "FilterZeroPointTensor": {"DataType": "INT8", "Sizes": [1, 1, 1, 1]},
            "OutputTensor": {"DataType": "INT32", "Sizes": [n, oc, oh, ow]},
            "DimensionCount": 2, "Strides": [stride, stride], "Dilations": [1, 1],
            "StartPadding": [pad, pad], "EndPadding": [pad, pad], "GroupCount": 1}}},
        "commands": [
            {"type": "dispatch", "dispatchable": "conv",
             "bindings": {"InputTensor": "x", "InputZeroPointTensor": "xz", "FilterTensor": "f",
                          "FilterZeroPointTensor": "fz", "OutputTensor": "y"}},
            {"type": "writeFile", "resource": "x", "targetPath": name + ".bin"},
        ],
    }


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    layers = dict(RESNET50)
    if len(sys.argv) > 2:
        layers = {}
        for spec in sys.argv[2:]:
            name, numbers = spec.split("=")
            layers[name] = tuple(int(v) for v in numbers.split(","))
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, shape in layers.items():
        with open(os.path.join(sys.argv[1], name + ".json"), "w") as f:
            json.dump(model(name, *shape), f, indent=1)
    print(f"{len(layers)} models in {sys.argv[1]}")


if __name__ == "__main__":
    main()
