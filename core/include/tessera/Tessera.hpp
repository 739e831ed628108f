// The one header a user includes.
#pragma once
#include "tessera/Backend.hpp"
#include "tessera/BuildConfig.hpp"
#include "tessera/CustomOp.hpp"
#include "tessera/DataType.hpp"
#include "tessera/Graph.hpp"
#include "tessera/OpenClKernel.hpp"
#include "tessera/VulkanKernel.hpp"
#include "tessera/Registry.hpp"
#include "tessera/Session.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"
