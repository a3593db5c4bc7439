"""Version, status, errors, contexts, devices: the parts every build has."""
import threading

import pytest

import ferry


def test_version_matches_header():
    assert ferry.version() == ferry.HEADER_VERSION
    assert ferry.version_string().startswith(ferry.__version__)


def test_status_names_and_enums():
    assert ferry.status_string(ferry.Status.INVALID_HANDLE) == "FERRY_ERR_INVALID_HANDLE"
    assert ferry.status_string(999) == "FERRY_STATUS_UNKNOWN"
    assert ferry.DType.BFLOAT16 == 4 and ferry.Layout.NCHW == 2 and ferry.Device.CUDA == 2
    assert ferry.MemoryKind.ALL == ferry.MemoryKind.PINNED | ferry.MemoryKind.REGISTERED | ferry.MemoryKind.DEVICE


def test_every_status_has_its_own_error_class():
    from ferry import _errors, ferry_swig
    c_statuses = {v for k, v in vars(ferry_swig).items() if k == "FERRY_OK" or k.startswith("FERRY_ERR_")}
    assert c_statuses == set(ferry.Status)
    classes = {status: _errors.ERROR_CLASSES[status] for status in ferry.Status if status != ferry.Status.OK}
    assert len(set(classes.values())) == len(classes)
    for status, cls in classes.items():
        assert ferry.status_string(status) == "FERRY_ERR_" + status.name
        assert cls.__name__.replace("_", "").lower().startswith(status.name.replace("_", "").lower()), cls
    assert issubclass(ferry.OutputTooSmallError, ValueError) and issubclass(ferry.SourceTooSmallError, ValueError)


def test_error_hierarchy():
    assert issubclass(ferry.InvalidArgumentError, ferry.FerryError)
    assert issubclass(ferry.InvalidArgumentError, ValueError)
    assert issubclass(ferry.OutOfMemoryError, MemoryError)
    assert issubclass(ferry.NoDeviceError, RuntimeError)


def test_cpu_context_as_context_manager():
    with ferry.Context(ferry.Device.CPU, cpu_threads=2) as ctx:
        assert ctx.device == ferry.Device.CPU
        assert not ctx.closed
    assert ctx.closed


def test_auto_context_without_gpu_is_cpu():
    if ferry.device_count() > 0:
        pytest.skip("a GPU is present: AUTO picks it")
    with ferry.Context() as ctx:
        assert ctx.device == ferry.Device.CPU


def test_bad_option_raises_with_ferrys_message():
    with pytest.raises(ferry.InvalidArgumentError) as info:
        ferry.Context(stream_count=1000)
    assert info.value.status == ferry.Status.INVALID_ARGUMENT
    assert "stream_count" in info.value.message and "1000" in info.value.message
    assert ferry.last_error() == info.value.message


def test_device_timing_is_a_context_option():
    for timing in ferry.DeviceTiming:
        with ferry.Context(ferry.Device.CPU, device_timing=timing) as ctx:
            assert ctx.stats()["timed_chunks"] == 0
    with pytest.raises(ferry.UnsupportedError) as info:  # an enum value this ferry does not know
        ferry.Context(ferry.Device.CPU, device_timing=9)
    assert "options->device_timing is 9" in info.value.message


def test_the_cpu_backend_times_every_chunk_whatever_device_timing_says():
    np = pytest.importorskip("numpy")
    for timing in ferry.DeviceTiming:
        with ferry.Context(ferry.Device.CPU, device_timing=timing) as ctx:
            with ctx.submit(np.zeros((2, 8, 8, 3), np.uint8)) as batch:
                batch.wait()
            assert ctx.stats()["timed_chunks"] >= 1


def test_pinned_method_is_a_context_option():
    for method in (0, 1):  # FERRY_PINNED_REGISTER, FERRY_PINNED_HOST_ALLOC
        with ferry.Context(ferry.Device.CPU, pinned_method=method) as ctx:
            assert ctx.device == ferry.Device.CPU
    with pytest.raises(ferry.UnsupportedError) as info:
        ferry.Context(ferry.Device.CPU, pinned_method=7)
    assert "options->pinned_method is 7" in info.value.message


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError):
        ferry.Context(streams=4)


def test_use_after_close_raises_invalid_handle():
    ctx = ferry.Context(ferry.Device.CPU)
    ctx.close()
    with pytest.raises(ferry.InvalidHandleError) as info:
        ctx.device
    assert "ctx" in info.value.message


def test_close_twice_is_harmless():
    ctx = ferry.Context(ferry.Device.CPU)
    ctx.close()
    ctx.close()
    with ctx:
        pass
    assert ctx.closed


def test_cuda_without_gpu_is_no_device():
    if ferry.device_count() > 0:
        pytest.skip("a GPU is present")
    with pytest.raises(ferry.NoDeviceError):
        ferry.Context(ferry.Device.CUDA)
    with pytest.raises(ferry.FerryError):
        ferry.device_properties(0)


def test_device_properties_on_gpu():
    if ferry.device_count() == 0:
        pytest.skip("no CUDA device on this machine")
    props = ferry.device_properties(0)
    assert props["name"] and props["multiprocessor_count"] > 0


def test_contexts_from_many_threads():
    errors = []

    def work():
        try:
            for _ in range(5):
                with ferry.Context(ferry.Device.CPU, cpu_threads=1) as ctx:
                    assert ctx.device == ferry.Device.CPU
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
